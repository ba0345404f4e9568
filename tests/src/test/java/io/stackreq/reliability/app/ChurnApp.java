package io.stackreq.reliability.app;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.stackreq.testapp.Args;
import io.stackreq.testapp.BusyLoops;
import io.stackreq.testapp.Report;
import io.stackreq.testapp.ThreadFailures;

/**
 * Stress: signal-driven requests at a fixed rate ({@code pacers} x {@code hz}, 10 x 1000 = 10 kHz)
 * on long-lived workers (compute, allocate, copy, JNI, sleep, deoptimize) and on a stream of
 * short-lived threads ({@code churn} alive at a time, each living 2-20 ms), while fresh copies
 * of {@link DeoptVictim} are loaded through throw-away loaders (deoptimization, recompilation,
 * class unloading) and the main thread forces a GC every 500 ms on top of the allocation.
 *
 * <p>Arguments: {@code out}, {@code results} (libchaos prefix), {@code threads} (file of "tid
 * name" lines, one per thread that registered), {@code seconds} (60), {@code pacers} (10),
 * {@code hz} (1000), {@code churn} (4).
 *
 * <p>Report: {@code enable.rc}, {@code issued}, {@code signals}, {@code churnThreads},
 * {@code victims}, {@code gcCount}, {@code unloadedClasses}, {@code elapsedNanos}.
 */
public final class ChurnApp {
    private ChurnApp() {
    }

    public static void main(String[] args) throws Exception {
        Args a = Args.parse(args);
        long nanos = (long) (a.getDouble("seconds", 60) * 1e9);
        int churn = a.getInt("churn", 4);
        Report report = Report.afterEnable(Chaos.enable());
        Queue<String> registered = new ConcurrentLinkedQueue<>();
        ThreadFailures failures = new ThreadFailures();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong victims = new AtomicLong();
        AtomicLong churnThreads = new AtomicLong();
        long unloadedBefore = ManagementFactory.getClassLoadingMXBean().getUnloadedClassCount();
        long gcBefore = BusyLoops.gcCount();

        List<Thread> workers = new ArrayList<>();
        for (int kind = 0; kind < 6; kind++) {
            int k = kind;
            String name = "worker-" + (k < 5 ? Workloads.KINDS[k] : "deopt");
            workers.add(failures.start(name, () -> {
                registered.add(Chaos.register() + " " + name);
                try {
                    if (k < 5) {
                        Workloads.run(k, running::get);
                    } else {
                        while (running.get()) {
                            Workloads.sink += ThrowAwayLoader.runFreshVictim(200_000);
                            victims.incrementAndGet();
                        }
                    }
                } finally {
                    Chaos.unregister();
                }
            }));
        }

        Semaphore alive = new Semaphore(churn);
        Thread spawner = failures.start("spawner", () -> {
            long n = 0;
            while (running.get()) {
                try {
                    alive.acquire();
                } catch (InterruptedException e) {
                    return;
                }
                String name = "churn-" + n++;
                churnThreads.incrementAndGet();
                failures.start(name, () -> {
                    try {
                        registered.add(Chaos.register() + " " + name);
                        shortLife(victims);
                    } finally {
                        Chaos.unregister();
                        alive.release();
                    }
                });
            }
        });

        Chaos.startPacersOrThrow(a.getInt("pacers", 10), a.getInt("hz", 1000), 0);
        long start = System.nanoTime();
        while (System.nanoTime() - start < nanos && !failures.any()) {
            Thread.sleep(500);
            System.gc();
        }
        running.set(false);
        spawner.join();
        alive.acquire(churn);
        for (Thread worker : workers) {
            worker.join();
        }
        Chaos.stopPacers();
        long elapsed = System.nanoTime() - start;
        failures.rethrowFirst("a stress thread failed");
        System.gc();
        Chaos.writeResultsOrThrow(a.get("results"));
        Files.write(a.path("threads"), registered, StandardCharsets.UTF_8);
        report.put("issued", Chaos.issued());
        report.put("signals", Chaos.signalsSent());
        report.put("churnThreads", churnThreads.get());
        report.put("victims", victims.get());
        report.put("gcCount", BusyLoops.gcCount() - gcBefore);
        report.put("unloadedClasses",
                ManagementFactory.getClassLoadingMXBean().getUnloadedClassCount() - unloadedBefore);
        report.put("elapsedNanos", elapsed);
        report.write(a.path("out"));
    }

    /** 2-20 ms of one kind of work, then the thread ends. */
    static void shortLife(AtomicLong victims) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long end = System.nanoTime() + random.nextLong(2_000_000, 20_000_000);
        int kind = random.nextInt(4);
        if (kind == 3) {
            Workloads.sink += ThrowAwayLoader.runFreshVictim(20_000);
            victims.incrementAndGet();
            return;
        }
        Workloads.run(kind, () -> System.nanoTime() - end < 0);
    }
}
