package io.stackreq.demo;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Locale;

/**
 * A safepoint-bias trap: one thread alternates between {@link #copyArrays} (about 60% of the
 * time, nearly all of it inside the {@code System.arraycopy} stub, where a stack walk from a
 * signal is hardest) and {@link #countedLoop} (about 40%, a counted loop the JIT compiles with few
 * safepoint polls). It measures the thread CPU time it spends in each (at the phase boundaries
 * only, so the clock calls add nothing inside the phases, and other load on the machine does not
 * skew the truth) and prints the shares at exit: the ground truth a CPU profile should reproduce.
 *
 * <p>Usage: {@code BiasTrap [seconds [file]]} (default 15 s); with a file, it also writes the
 * shares there as two lines, {@code copyArrays PERCENT} and {@code countedLoop PERCENT}, for
 * {@code stackreq demo} to put beside what JFR and stackreq say.
 */
public final class BiasTrap {
    public static final String DESCRIPTION = "BiasTrap spends ~60% of its CPU in copyArrays (System.arraycopy) "
            + "and ~40% in countedLoop (a cheap counted loop)";
    public static final String COPY_METHOD = "io.stackreq.demo.BiasTrap.copyArrays";
    public static final String LOOP_METHOD = "io.stackreq.demo.BiasTrap.countedLoop";

    private static final long SLICE_NANOS = 10_000_000;   // one round: 6 ms copying, 4 ms looping
    private static final int ARRAY_LENGTH = 1 << 16;      // 256 KiB per int array

    // Results go to a field so the JIT cannot drop the work.
    static volatile long sink;

    private BiasTrap() {
    }

    public static void main(String[] args) throws IOException {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 15;
        int[] source = new int[ARRAY_LENGTH];
        int[] target = new int[ARRAY_LENGTH];
        for (int i = 0; i < source.length; i++) {
            source[i] = i * 31;
        }
        long copyNanos = 0;
        long loopNanos = 0;
        long end = System.nanoTime() + (long) (seconds * 1e9);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        while (System.nanoTime() < end) {
            long start = threads.getCurrentThreadCpuTime();
            copyArrays(source, target, SLICE_NANOS * 6 / 10);
            long middle = threads.getCurrentThreadCpuTime();
            countedLoop(SLICE_NANOS * 4 / 10);
            long stop = threads.getCurrentThreadCpuTime();
            copyNanos += middle - start;
            loopNanos += stop - middle;
        }
        double total = copyNanos + loopNanos;
        System.out.printf(Locale.ROOT,
                "BiasTrap: measured copyArrays %.1f%% (%.2f s of CPU), countedLoop %.1f%% (%.2f s of CPU)%n",
                100 * copyNanos / total, copyNanos / 1e9, 100 * loopNanos / total, loopNanos / 1e9);
        if (args.length > 1) {
            Files.writeString(Paths.get(args[1]), String.format(Locale.ROOT, "copyArrays %.1f%ncountedLoop %.1f%n",
                    100 * copyNanos / total, 100 * loopNanos / total));
        }
    }

    /**
     * The shares a run wrote with {@code [file]}: copyArrays's, then countedLoop's, in percent.
     *
     * @throws IOException when the file is missing or not what {@link #main} writes
     */
    public static double[] readMeasured(Path file) throws IOException {
        double[] shares = new double[2];
        List<String> lines = Files.readAllLines(file);
        if (lines.size() != 2 || !lines.get(0).startsWith("copyArrays ") || !lines.get(1).startsWith("countedLoop ")) {
            throw new IOException(file + " does not hold BiasTrap's shares");
        }
        try {
            shares[0] = Double.parseDouble(lines.get(0).substring("copyArrays ".length()));
            shares[1] = Double.parseDouble(lines.get(1).substring("countedLoop ".length()));
        } catch (NumberFormatException e) {
            throw new IOException(file + " does not hold BiasTrap's shares", e);
        }
        return shares;
    }

    /** Copies back and forth until the budget is spent: the time is in the arraycopy stub. */
    static void copyArrays(int[] source, int[] target, long budgetNanos) {
        long end = System.nanoTime() + budgetNanos;
        do {
            System.arraycopy(source, 0, target, 0, source.length);
            System.arraycopy(target, 0, source, 0, target.length);
        } while (System.nanoTime() < end);
        sink += target[ARRAY_LENGTH - 1];
    }

    /** Integer arithmetic in a counted loop until the budget is spent. */
    static void countedLoop(long budgetNanos) {
        long end = System.nanoTime() + budgetNanos;
        int accumulator = (int) sink;
        do {
            for (int i = 0; i < 50_000; i++) {
                accumulator = accumulator * 31 + (i ^ (accumulator >>> 7));
            }
        } while (System.nanoTime() < end);
        sink += accumulator;
    }
}
