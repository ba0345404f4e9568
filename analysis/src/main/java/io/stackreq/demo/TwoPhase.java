package io.stackreq.demo;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;

/**
 * Two phases on the main thread: {@link #methodA} runs three times as many iterations of the
 * same loop body as {@link #methodB}, so it burns three times their CPU whatever else the machine
 * is doing, and a correct CPU profile gives A 75% and B 25% of the samples of these two. Nothing
 * is called inside the loops (a clock call inlined there would take part of the samples), and the
 * burning loop sits in the methods themselves, so they are the top frames (self time). The CPU
 * time of each phase is measured at its boundaries and printed.
 *
 * <p>Usage: {@code TwoPhase [seconds]} (default 4; approximate: the work is fixed, sized for about
 * ITERATIONS_PER_SECOND).
 */
public final class TwoPhase {
    public static final String METHOD_A = "io.stackreq.demo.TwoPhase.methodA";
    public static final String METHOD_B = "io.stackreq.demo.TwoPhase.methodB";

    // About what one core here runs of this loop body per second; only the duration depends on it.
    private static final double ITERATIONS_PER_SECOND = 0.7e9;

    static volatile long sink;

    private TwoPhase() {
    }

    public static void main(String[] args) {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 4;
        long quarter = (long) (seconds * ITERATIONS_PER_SECOND / 4);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long startA = threads.getCurrentThreadCpuTime();
        methodA(3 * quarter);
        long startB = threads.getCurrentThreadCpuTime();
        methodB(quarter);
        long end = threads.getCurrentThreadCpuTime();
        System.out.printf(Locale.ROOT, "TwoPhase: methodA %.2f s, methodB %.2f s of CPU%n", (startB - startA) / 1e9,
                (end - startB) / 1e9);
    }

    public static void methodA(long iterations) {
        long accumulator = sink;
        for (long i = 0; i < iterations; i++) {
            accumulator = accumulator * 6364136223846793005L + i;
        }
        sink = accumulator;
    }

    public static void methodB(long iterations) {
        long accumulator = sink;
        for (long i = 0; i < iterations; i++) {
            accumulator = accumulator * 2862933555777941757L + i;
        }
        sink = accumulator;
    }
}
