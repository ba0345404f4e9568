package io.stackreq.demo;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;

/**
 * Two phases on the main thread: {@link #methodA} burns three times as much of this thread's CPU
 * time as {@link #methodB} (measured with the thread CPU clock, so other load on the machine does
 * not change the split), so a correct CPU profile gives A 75% and B 25% of the samples of these
 * two. The burning loop sits in the methods themselves, so they are the top frames (self time).
 *
 * <p>Usage: {@code TwoPhase [seconds]} (default 4: A for 3 s, then B for 1 s).
 */
public final class TwoPhase {
    public static final String METHOD_A = "io.stackreq.demo.TwoPhase.methodA";
    public static final String METHOD_B = "io.stackreq.demo.TwoPhase.methodB";

    static volatile long sink;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private TwoPhase() {
    }

    public static void main(String[] args) {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 4;
        long quarter = (long) (seconds * 1e9 / 4);
        long startA = cpuNanos();
        methodA(3 * quarter);
        long startB = cpuNanos();
        methodB(quarter);
        long end = cpuNanos();
        System.out.printf(Locale.ROOT, "TwoPhase: methodA %.2f s, methodB %.2f s of CPU%n", (startB - startA) / 1e9,
                (end - startB) / 1e9);
    }

    static void methodA(long nanos) {
        long end = cpuNanos() + nanos;
        long accumulator = sink;
        do {
            for (int i = 0; i < 500_000; i++) {
                accumulator = accumulator * 6364136223846793005L + i;
            }
        } while (cpuNanos() < end);
        sink = accumulator;
    }

    static void methodB(long nanos) {
        long end = cpuNanos() + nanos;
        long accumulator = sink;
        do {
            for (int i = 0; i < 500_000; i++) {
                accumulator = accumulator * 2862933555777941757L + i;
            }
        } while (cpuNanos() < end);
        sink = accumulator;
    }

    private static long cpuNanos() {
        return THREADS.getCurrentThreadCpuTime();
    }
}
