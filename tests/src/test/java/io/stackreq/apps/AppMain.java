package io.stackreq.apps;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs one {@link App}: on each of its threads ({@code app-<name>-<i>}) {@code warmup} rounds, then,
 * once every thread is done warming up, {@code rounds} measured rounds; then prints the line the
 * harnesses parse:
 *
 * <pre>
 * BENCH name=h2 threads=4 rounds=.. seconds=.. roundsPerSecond=.. cpuSeconds=.. startNanos=.. endNanos=..
 *       startEpochMillis=.. endEpochMillis=.. checksum=..
 * </pre>
 *
 * {@code rounds} counts every thread's measured rounds; {@code startNanos}/{@code endNanos} are
 * {@code System.nanoTime()} (CLOCK_MONOTONIC on Linux, the clock of the perf samples) and the epoch
 * times bound the measured phase for JFR readers; {@code cpuSeconds} is the CPU time of the whole
 * process (every thread: agents, JFR, GC, JIT) during it. A failure in any thread prints its stack
 * trace and exits 1.
 *
 * <p>Usage: {@code AppMain NAME WARMUP_ROUNDS MEASURED_ROUNDS} (rounds per thread).
 */
public final class AppMain {
    private AppMain() {
    }

    public static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: io.stackreq.apps.AppMain " + String.join("|", App.NAMES)
                    + " WARMUP_ROUNDS MEASURED_ROUNDS");
            System.exit(2);
        }
        App app = App.named(args[0]);
        int warmup = Integer.parseInt(args[1]);
        int rounds = Integer.parseInt(args[2]);
        app.setUp();
        int threads = app.threads();
        // The phase's ends are read by the workers themselves: the last to finish warming up starts it,
        // the last to finish its rounds ends it (a main thread woken late on a busy machine would
        // read them late).
        long[] phase = new long[6];  // start nanos, epoch millis, CPU; end nanos, epoch millis, CPU
        CyclicBarrier warm = new CyclicBarrier(threads, () -> {
            phase[1] = System.currentTimeMillis();
            phase[2] = processCpuNanos();
            phase[0] = System.nanoTime();
        });
        CountDownLatch done = new CountDownLatch(threads);
        AtomicLong finishing = new AtomicLong(threads);
        AtomicLong checksum = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> started = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int index = t;
            Thread thread = new Thread(() -> {
                try (App.Worker worker = app.worker(index)) {
                    long sum = 0;
                    for (int i = 0; i < warmup; i++) {
                        sum += worker.round(i);
                    }
                    warm.await();
                    for (int i = 0; i < rounds; i++) {
                        sum += worker.round(warmup + i);
                    }
                    if (finishing.decrementAndGet() == 0) {
                        phase[3] = System.nanoTime();
                        phase[5] = processCpuNanos();
                        phase[4] = System.currentTimeMillis();
                    }
                    checksum.addAndGet(sum);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                    warm.reset();
                } finally {
                    done.countDown();
                }
            }, "app-" + app.name() + "-" + t);
            thread.start();
            started.add(thread);
        }
        done.await();
        for (Thread thread : started) {
            thread.join();
        }
        app.tearDown();
        if (failure.get() != null) {
            failure.get().printStackTrace();
            System.exit(1);
        }
        double seconds = (phase[3] - phase[0]) / 1e9;
        long total = (long) rounds * threads;
        System.out.printf("BENCH name=%s threads=%d rounds=%d seconds=%.6f roundsPerSecond=%.3f cpuSeconds=%.6f "
                        + "startNanos=%d endNanos=%d startEpochMillis=%d endEpochMillis=%d checksum=%d%n",
                app.name(), threads, total, seconds, total / seconds, (phase[5] - phase[2]) / 1e9, phase[0], phase[3],
                phase[1], phase[4], checksum.get());
    }
}
