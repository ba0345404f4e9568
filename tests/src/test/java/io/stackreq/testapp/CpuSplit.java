package io.stackreq.testapp;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A workload with a known split, measured by itself: {@code threads} workers run {@link #methodA},
 * {@link #methodB} and {@link #methodC} in turn, 3, 2 and 1 units of the same loop body (a few
 * milliseconds a unit, so the mix evens out within any second), and add the thread CPU time and
 * the wall time ({@code System.nanoTime}) of every call, read between the calls, to the method's
 * totals, from the end of a warm-up to the end of the run. Nothing is called inside the loops, so
 * each method is the top frame of its samples.
 *
 * <p>Arguments ({@code key=value}): {@code out} (the {@link Report}, required), {@code threads}
 * (2), {@code unit} (iterations of a unit, 2,000,000), {@code warmupSeconds} (1), {@code seconds}
 * (3, measured after the warm-up). The report has
 * {@code cpu.A}, {@code cpu.B}, {@code cpu.C}, {@code wall.A} ... in nanoseconds over all workers,
 * and {@code window.start} / {@code window.end}, the measured window in nanoseconds since the
 * epoch.
 */
public final class CpuSplit {
    /** Iterations of one unit, by default. */
    private static final long UNIT = 2_000_000;
    private static long unit = UNIT;

    static volatile long sink;
    private static final AtomicLongArray CPU = new AtomicLongArray(3);
    private static final AtomicLongArray WALL = new AtomicLongArray(3);
    private static volatile boolean measuring;
    private static volatile boolean running = true;

    private CpuSplit() {
    }

    public static void main(String[] args) throws Exception {
        Args a = Args.parse(args);
        int threads = a.getInt("threads", 2);
        unit = (long) a.getDouble("unit", UNIT);
        Thread[] workers = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            workers[i] = new Thread(CpuSplit::work, "split-worker-" + i);
            workers[i].start();
        }
        Thread.sleep((long) (a.getDouble("warmupSeconds", 1) * 1000));
        Instant start = Instant.now();
        measuring = true;
        Thread.sleep((long) (a.getDouble("seconds", 3) * 1000));
        measuring = false;
        Instant end = Instant.now();
        running = false;
        for (Thread worker : workers) {
            worker.join();
        }
        new Report().put("cpu.A", CPU.get(0)).put("cpu.B", CPU.get(1)).put("cpu.C", CPU.get(2))
                .put("wall.A", WALL.get(0)).put("wall.B", WALL.get(1)).put("wall.C", WALL.get(2))
                .put("window.start", epochNanos(start)).put("window.end", epochNanos(end))
                .write(a.path("out"));
    }

    private static long epochNanos(Instant instant) {
        return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
    }

    private static void work() {
        ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        long[] cpu = new long[4];
        long[] wall = new long[4];
        while (running) {
            cpu[0] = bean.getCurrentThreadCpuTime();
            wall[0] = System.nanoTime();
            methodA(3 * unit);
            cpu[1] = bean.getCurrentThreadCpuTime();
            wall[1] = System.nanoTime();
            methodB(2 * unit);
            cpu[2] = bean.getCurrentThreadCpuTime();
            wall[2] = System.nanoTime();
            methodC(unit);
            cpu[3] = bean.getCurrentThreadCpuTime();
            wall[3] = System.nanoTime();
            if (measuring) {
                for (int m = 0; m < 3; m++) {
                    CPU.addAndGet(m, cpu[m + 1] - cpu[m]);
                    WALL.addAndGet(m, wall[m + 1] - wall[m]);
                }
            }
        }
    }

    static void methodA(long iterations) {
        long accumulator = sink;
        for (long i = 0; i < iterations; i++) {
            accumulator = accumulator * 6364136223846793005L + i;
        }
        sink = accumulator;
    }

    static void methodB(long iterations) {
        long accumulator = sink;
        for (long i = 0; i < iterations; i++) {
            accumulator = accumulator * 2862933555777941757L + i;
        }
        sink = accumulator;
    }

    static void methodC(long iterations) {
        long accumulator = sink;
        for (long i = 0; i < iterations; i++) {
            accumulator = accumulator * 3935559000370003845L + i;
        }
        sink = accumulator;
    }
}
