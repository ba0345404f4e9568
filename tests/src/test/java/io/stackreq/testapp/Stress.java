package io.stackreq.testapp;

import java.lang.management.ClassLoadingMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongUnaryOperator;

/**
 * 8 threads with CPU-time timers (requests from real signals) for {@code seconds} (10) while
 * they burn CPU, allocate (GC pressure) and load {@link Loadable} through throw-away class
 * loaders (class loading and unloading); the main thread calls System.gc() every 500 ms.
 * Arguments: {@code out} (required), {@code seconds}, {@code intervalUs} (1000).
 * Report: the timer results, {@code loaders}, {@code gcCount}, {@code unloadedClasses}.
 */
public final class Stress {
    static volatile long sink;
    static volatile Object retained;

    private Stress() {
    }

    public static void main(String[] args) throws Exception {
        Args a = Args.parse(args);
        long nanos = (long) (a.getDouble("seconds", 10) * 1e9);
        int intervalUs = a.getInt("intervalUs", 1000);
        URL classes = Path.of(System.getProperty("java.class.path").split(java.io.File.pathSeparator)[0])
                .toUri().toURL();
        Report report = new Report();
        report.put("enable.rc", Requester.enable());

        AtomicLong loaders = new AtomicLong();
        long unloadedBefore = ManagementFactory.getClassLoadingMXBean().getUnloadedClassCount();
        long gcBefore = gcCount();
        long deadline = System.nanoTime() + nanos;
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = new ArrayList<>();
        CountDownLatch started = new CountDownLatch(8);
        for (int i = 0; i < 8; i++) {
            int kind = i % 3;
            Runnable work = kind == 0 ? () -> burnUntil(deadline)
                    : kind == 1 ? () -> allocateUntil(deadline)
                    : () -> loadClassesUntil(deadline, classes, loaders);
            Thread thread = new Thread(() -> {
                try {
                    Requester.startTimerOrThrow(intervalUs);
                    started.countDown();
                    work.run();
                    Requester.stopTimerOrThrow();
                } catch (Throwable t) {
                    synchronized (failures) {
                        failures.add(t);
                    }
                    started.countDown();
                }
            }, "stress-" + i);
            threads.add(thread);
            thread.start();
        }
        started.await();
        while (System.nanoTime() - deadline < 0) {
            Thread.sleep(500);
            System.gc();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException("stress thread failed", failures.get(0));
        }
        System.gc();
        ClassLoadingMXBean classLoading = ManagementFactory.getClassLoadingMXBean();
        Requester.putTimerResults(report);
        report.put("loaders", loaders.get());
        report.put("gcCount", gcCount() - gcBefore);
        report.put("unloadedClasses", classLoading.getUnloadedClassCount() - unloadedBefore);
        report.write(a.path("out"));
    }

    static long gcCount() {
        long count = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            count += Math.max(0, gc.getCollectionCount());
        }
        return count;
    }

    static void burnUntil(long deadline) {
        long x = 7;
        while (System.nanoTime() - deadline < 0) {
            for (int i = 0; i < 100_000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
        }
        sink += x;
    }

    static void allocateUntil(long deadline) {
        Object[] keep = new Object[256];
        int n = 0;
        while (System.nanoTime() - deadline < 0) {
            for (int i = 0; i < 1000; i++) {
                List<long[]> list = new ArrayList<>();
                for (int j = 0; j < 16; j++) {
                    list.add(new long[64 + (i & 63)]);
                }
                keep[n++ & 255] = list;
            }
            retained = keep[n & 255];
        }
    }

    static void loadClassesUntil(long deadline, URL classes, AtomicLong loaders) {
        ClassLoader parent = ClassLoader.getPlatformClassLoader();
        while (System.nanoTime() - deadline < 0) {
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
