package io.stackreq.reliability.app;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import io.stackreq.testapp.Args;
import io.stackreq.testapp.BusyLoops;
import io.stackreq.testapp.Report;
import io.stackreq.testapp.ThreadFailures;

/**
 * Fuzzed ucontexts: worker threads in every state ({@link Workloads}) are signalled by the pacers;
 * each signal makes {@code perSignal} requests with mutated copies of the real context, until
 * {@code requests} ids have been handed out.
 *
 * <p>Arguments: {@code out} report, {@code results} libchaos results prefix, {@code requests}
 * (50000), {@code perSignal} (16), {@code pacers} (2), {@code hz} per pacer (1000),
 * {@code threads} (5, one per workload kind, round robin), {@code internal} (false: also signal the
 * JVM's own threads, two native threads the VM never sees and two attached to it, see
 * {@link Chaos#registerInternalThreads}).
 *
 * <p>Report: {@code enable.rc}, {@code issued}, {@code signals}, {@code gcCount},
 * {@code tid.<kind>.<n>}, {@code internalThreads}.
 */
public final class FuzzApp {
    private FuzzApp() {
    }

    public static void main(String[] args) throws Exception {
        Args a = Args.parse(args);
        long requests = a.getLong("requests", 50_000);
        int threadCount = a.getInt("threads", 5);
        Report report = Report.afterEnable(Chaos.enable());

        ThreadFailures failures = new ThreadFailures();
        List<Thread> threads = new ArrayList<>();
        CountDownLatch registered = new CountDownLatch(threadCount);
        AtomicBoolean running = new AtomicBoolean(true);
        for (int i = 0; i < threadCount; i++) {
            int kind = i;
            String name = "fuzz-" + Workloads.KINDS[kind % 5] + "-" + i;
            threads.add(failures.start(name, () -> {
                try {
                    try {
                        int tid = Chaos.register();
                        synchronized (report) {
                            report.put("tid." + name, tid);
                        }
                    } finally {
                        registered.countDown();
                    }
                    Workloads.run(kind, running::get);
                } finally {
                    Chaos.unregister();
                }
            }));
        }
        registered.await();
        boolean internal = a.getBoolean("internal", false);
        if (internal) {
            report.put("internalThreads", Chaos.registerInternalThreads());
            int error = Chaos.startNativeSpinners(2, 2);
            if (error != 0) {
                throw new IllegalStateException("startNativeSpinners failed: errno " + error);
            }
        }
        Chaos.startPacersOrThrow(a.getInt("pacers", 2), a.getInt("hz", 1000), a.getInt("perSignal", 16));
        while (Chaos.issued() < requests && !failures.any()) {
            Thread.sleep(50);
        }
        Chaos.stopPacers();
        if (internal) {
            Chaos.stopNativeSpinners();
        }
        running.set(false);
        for (Thread thread : threads) {
            thread.join();
        }
        failures.rethrowFirst("worker failed");
        Chaos.writeResultsOrThrow(a.get("results"));
        report.put("issued", Chaos.issued());
        report.put("signals", Chaos.signalsSent());
        report.put("gcCount", BusyLoops.gcCount());
        report.write(a.path("out"));
    }
}
