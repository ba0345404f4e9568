package bench;

import java.lang.management.ManagementFactory;

/**
 * Spins in C code at a chosen native depth (libnativedepth_fp.so / libnativedepth_nofp.so,
 * tests/src/test/native/native_depth.c): every sample taken in the spin has that many native
 * frames above the Java ones.
 *
 * <p>Usage: {@code NativeDepthSpin LIBRARY DEPTH SECONDS}. A 0.3 s spin first (the JVM's start-up
 * work settles), then the measured one. Prints {@code SPIN units=.. seconds=.. threadCpuSeconds=..
 * cpuSeconds=.. startNanos=.. endNanos=.. startEpochMillis=.. endEpochMillis=..}: units of work
 * done, the spinning thread's CPU time (a profiler's signal handler runs on it) and the whole
 * process's (its other threads too), and the bounds of the measured spin for the sample readers.
 */
public final class NativeDepthSpin {
    static native long spin(int depth, long nanos);

    public static void main(String[] args) {
        System.load(args[0]);
        int depth = Integer.parseInt(args[1]);
        double seconds = Double.parseDouble(args[2]);
        spin(depth, 300_000_000L);
        var threads = ManagementFactory.getThreadMXBean();
        long startEpoch = System.currentTimeMillis(), start = System.nanoTime();
        long startThreadCpu = threads.getCurrentThreadCpuTime(), startCpu = Workload.processCpuNanos();
        long units = spin(depth, (long) (seconds * 1e9));
        long endThreadCpu = threads.getCurrentThreadCpuTime(), endCpu = Workload.processCpuNanos();
        long end = System.nanoTime(), endEpoch = System.currentTimeMillis();
        System.out.printf("SPIN units=%d seconds=%.6f threadCpuSeconds=%.6f cpuSeconds=%.6f startNanos=%d endNanos=%d "
                        + "startEpochMillis=%d endEpochMillis=%d%n", units, (end - start) / 1e9,
                (endThreadCpu - startThreadCpu) / 1e9, (endCpu - startCpu) / 1e9, start, end, startEpoch, endEpoch);
    }
}
