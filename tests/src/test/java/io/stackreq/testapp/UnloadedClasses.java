package io.stackreq.testapp;

import java.lang.management.ManagementFactory;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.function.Function;

/**
 * Requests whose stacks hold a frame of a class that is unloaded right after: {@code rounds}
 * times (40), load {@link Loadable} through a fresh loader, call it, and from inside it deliver
 * the timer signal to this thread (an unbiased request with Loadable.apply below the top); then
 * drop the loader and run System.gc(), which unloads the class, often before the emitter has
 * resolved the frame. Arguments: {@code out} (required), {@code rounds}. Report: the timer
 * results and {@code unloadedClasses}.
 */
public final class UnloadedClasses {
    private UnloadedClasses() {
    }

    public static void main(String[] args) throws Exception {
        Args a = Args.parse(args);
        int rounds = a.getInt("rounds", 40);
        URL classes = Path.of(System.getProperty("java.class.path").split(java.io.File.pathSeparator)[0])
                .toUri().toURL();
        Report report = Report.afterEnable(Requester.enable());
        long unloadedBefore = ManagementFactory.getClassLoadingMXBean().getUnloadedClassCount();
        for (int i = 0; i < rounds; i++) {
            callThroughThrowAwayLoader(classes);
            System.gc();
        }
        Requester.putTimerResults(report);
        report.put("unloadedClasses", ManagementFactory.getClassLoadingMXBean().getUnloadedClassCount()
                - unloadedBefore);
        report.write(a.path("out"));
    }

    @SuppressWarnings("unchecked")
    private static void callThroughThrowAwayLoader(URL classes) throws Exception {
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes}, ClassLoader.getPlatformClassLoader())) {
            Class<?> loaded = loader.loadClass("io.stackreq.testapp.Loadable");
            if (loaded.getClassLoader() != loader) {
                throw new IllegalStateException("Loadable was not defined by the throw-away loader");
            }
            Function<Runnable, Long> function =
                    (Function<Runnable, Long>) loaded.getDeclaredConstructor().newInstance();
            function.apply(UnloadedClasses::signal);
        }
    }

    private static void signal() {
        int error = Requester.signalSelf();
        if (error != 0) {
            throw new IllegalStateException("signalSelf failed: errno " + error);
        }
    }
}
