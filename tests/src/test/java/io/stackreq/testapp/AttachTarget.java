package io.stackreq.testapp;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import io.stackreq.demo.TwoPhase;

/**
 * A JVM started without agents, to be profiled by attaching to it. Two workers started at once
 * run the demo's {@link TwoPhase#methodA}, {@link TwoPhase#methodB} and this class's
 * {@link #methodC} in turn, 3, 2 and 1 units of the same loop body each, and add the thread CPU
 * time of every call (read between the calls) to the method's total; every second a short-lived
 * "late-worker-N" runs the same mix for 300 ms, so threads also start while a profiler is attached.
 *
 * <p>Arguments ({@code key=value}): {@code dir} (required), {@code warmupSeconds} (3). After the
 * warm-up it prints, every 100 ms, {@code cpu <A ns> <B ns> <C ns> <late workers started>}, and
 * writes its pid to {@code dir/pid} after the first such line. It exits when {@code dir/stop}
 * exists. Run it with a fixed, pre-touched heap, so that its RSS shows native memory only, and with
 * the analysis module's classes on the class path.
 */
public final class AttachTarget {
    /** Iterations of one unit: a few milliseconds, so the mix evens out within any second. */
    private static final long UNIT = 2_000_000;

    static volatile long sink;
    private static final LongAdder[] CPU_NANOS = {new LongAdder(), new LongAdder(), new LongAdder()};
    private static final AtomicInteger LATE_WORKERS = new AtomicInteger();

    private AttachTarget() {
    }

    public static void main(String[] args) throws Exception {
        Args a = Args.parse(args);
        Path dir = a.path("dir");
        long warmupNanos = (long) (a.getDouble("warmupSeconds", 3) * 1e9);
        for (int i = 0; i < 2; i++) {
            Thread worker = new Thread(() -> work(Long.MAX_VALUE), "attach-worker-" + i);
            worker.setDaemon(true);
            worker.start();
        }
        Thread.sleep(warmupNanos / 1_000_000);
        long nextLateWorker = System.nanoTime();
        boolean ready = false;
        while (!Files.exists(dir.resolve("stop"))) {
            if (System.nanoTime() >= nextLateWorker) {
                Thread late = new Thread(() -> work(System.nanoTime() + 300_000_000L),
                        "late-worker-" + LATE_WORKERS.incrementAndGet());
                late.setDaemon(true);
                late.start();
                nextLateWorker += 1_000_000_000L;
            }
            System.out.println("cpu " + CPU_NANOS[0].sum() + " " + CPU_NANOS[1].sum() + " " + CPU_NANOS[2].sum() + " "
                    + LATE_WORKERS.get());
            if (!ready) {
                PidFile.write(dir);
                ready = true;
            }
            Thread.sleep(100);
        }
    }

    private static void work(long untilNanos) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadCpuTime();
        while (System.nanoTime() < untilNanos) {
            TwoPhase.methodA(3 * UNIT);
            long afterA = threads.getCurrentThreadCpuTime();
            TwoPhase.methodB(2 * UNIT);
            long afterB = threads.getCurrentThreadCpuTime();
            methodC(UNIT);
            long afterC = threads.getCurrentThreadCpuTime();
            CPU_NANOS[0].add(afterA - before);
            CPU_NANOS[1].add(afterB - afterA);
            CPU_NANOS[2].add(afterC - afterB);
            before = afterC;
        }
    }

    // TwoPhase's loop once more on purpose: a method of its own with its own loop, so that every
    // sample of the loop has methodC on top.
    static void methodC(long iterations) {
        long accumulator = sink;
        for (long i = 0; i < iterations; i++) {
            accumulator = accumulator * 3935559000370003845L + i;
        }
        sink = accumulator;
    }
}
