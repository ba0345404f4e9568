package io.stackreq.testapp;

import java.lang.management.ClassLoadingMXBean;
import java.lang.management.ManagementFactory;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.LongUnaryOperator;

/**
 * 8 threads with CPU-time timers (requests from real signals) for {@code seconds} (10) while
 * they burn CPU, allocate (GC pressure) and load {@link Loadable} through throw-away class
 * loaders (class loading and unloading); the main thread calls System.gc() every 500 ms.
 * Arguments: {@code out} (required), {@code seconds}, {@code intervalUs} (1000), {@code minRequests} (0:
 * the timer requests to wait for after {@code seconds}, for at most three times as long again).
 * Report: the timer results, {@code loaders}, {@code gcCount}, {@code unloadedClasses}.
 */
public final class Stress {
    static volatile long sink;

    private Stress() {
    }

    public static void main(String[] args) throws Exception {
        Args a = Args.parse(args);
        long nanos = (long) (a.getDouble("seconds", 10) * 1e9);
        int intervalUs = a.getInt("intervalUs", 1000);
        URL classes = Path.of(System.getProperty("java.class.path").split(java.io.File.pathSeparator)[0])
                .toUri().toURL();
        Report report = Report.afterEnable(Requester.enable());

        AtomicLong loaders = new AtomicLong();
        long unloadedBefore = ManagementFactory.getClassLoadingMXBean().getUnloadedClassCount();
        long gcBefore = BusyLoops.gcCount();
        long deadline = System.nanoTime() + nanos;
        int minRequests = a.getInt("minRequests", 0);
        AtomicBoolean stop = new AtomicBoolean();
        BooleanSupplier running = () -> !stop.get();
        ThreadFailures failures = new ThreadFailures();
        List<Thread> threads = new ArrayList<>();
        CountDownLatch started = new CountDownLatch(8);
        for (int i = 0; i < 8; i++) {
            int kind = i % 3;
            Runnable work = kind == 0 ? () -> BusyLoops.burn(running)
                    : kind == 1 ? () -> BusyLoops.allocate(running)
                    : () -> loadClassesWhile(running, classes, loaders);
            threads.add(failures.start("stress-" + i, () -> {
                try {
                    Requester.startTimerOrThrow(intervalUs);
                } finally {
                    started.countDown();
                }
                work.run();
                Requester.stopTimerOrThrow();
            }));
        }
        started.await();
        // On a busy machine the threads' CPU-time timers fire less often in the same wall time: the
        // run then goes on (up to four times as long) until the timers issued minRequests.
        long latest = deadline + 3 * nanos;
        while (System.nanoTime() - deadline < 0
                || (Requester.issued() < minRequests && System.nanoTime() - latest < 0)) {
            Thread.sleep(500);
            System.gc();
        }
        stop.set(true);
        for (Thread thread : threads) {
            thread.join();
        }
        failures.rethrowFirst("stress thread failed");
        System.gc();
        ClassLoadingMXBean classLoading = ManagementFactory.getClassLoadingMXBean();
        Requester.putTimerResults(report);
        report.put("loaders", loaders.get());
        report.put("gcCount", BusyLoops.gcCount() - gcBefore);
        report.put("unloadedClasses", classLoading.getUnloadedClassCount() - unloadedBefore);
        report.write(a.path("out"));
    }

    static void loadClassesWhile(BooleanSupplier running, URL classes, AtomicLong loaders) {
        ClassLoader parent = ClassLoader.getPlatformClassLoader();
        while (running.getAsBoolean()) {
            try (URLClassLoader loader = new URLClassLoader(new URL[] {classes}, parent)) {
                Class<?> loaded = loader.loadClass("io.stackreq.testapp.Loadable");
                if (loaded.getClassLoader() != loader) {
                    throw new IllegalStateException("Loadable was not defined by the throw-away loader");
                }
                LongUnaryOperator op = (LongUnaryOperator) loaded.getDeclaredConstructor().newInstance();
                sink += op.applyAsLong(loaders.incrementAndGet());
            } catch (ReflectiveOperationException | java.io.IOException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
