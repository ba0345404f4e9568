package bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Spins in C code at a chosen native depth (libnativedepth_fp.so / libnativedepth_nofp.so,
 * tests/src/test/native/native_depth.c): every sample taken in the spin has that many native
 * frames above the Java ones.
 *
 * <p>Usage: {@code NativeDepthSpin LIBRARY DEPTH SECONDS}. A 0.3 s spin first, then spins of 0.2 s
 * until the JIT compiler threads use less than 1% of two spins' time in a row (at most 4 s), then the
 * measured one: the measure is the steady state, not the tail of the start-up's compilations (a
 * JFR recording's start queues seconds of them on JDK 17, which on a loaded machine ran into the
 * measured spin and outweighed every profiler's own cost). Prints {@code SPIN units=.. seconds=..
 * threadCpuSeconds=.. cpuSeconds=.. startNanos=.. endNanos=.. startEpochMillis=.. endEpochMillis=..
 * settleSeconds=..}: units of work done, the spinning thread's CPU time (a profiler's signal
 * handler runs on it) and the whole process's (its other threads too), the bounds of the measured
 * spin for the sample readers, and how long the wait for the compiler threads took.
 * Then one line per thread of the process, {@code THREADCPU NANOS NAME}: its CPU time during the
 * measured spin (from {@code /proc/self/task/TID/schedstat}, nanoseconds, where {@code stat}'s
 * ticks are 10 ms), and {@code THREADCPU NANOS (ended)} for the CPU of threads that ended before
 * the second reading.
 */
public final class NativeDepthSpin {
    private static final int SETTLE_STEPS = 20;
    private static final long SETTLE_STEP_NANOS = 200_000_000L;

    static native long spin(int depth, long nanos);

    public static void main(String[] args) {
        System.load(args[0]);
        int depth = Integer.parseInt(args[1]);
        double seconds = Double.parseDouble(args[2]);
        spin(depth, 300_000_000L);
        long settleStart = System.nanoTime();
        long compiling = compilerCpuNanos();
        for (int step = 0, quiet = 0; step < SETTLE_STEPS && quiet < 2; step++) {
            spin(depth, SETTLE_STEP_NANOS);
            long now = compilerCpuNanos();
            // Two quiet steps in a row: a compiler thread starved by a loaded machine for one step
            // is not taken for an idle one.
            quiet = now - compiling < SETTLE_STEP_NANOS / 100 ? quiet + 1 : 0;
            compiling = now;
        }
        double settleSeconds = (System.nanoTime() - settleStart) / 1e9;
        var threads = ManagementFactory.getThreadMXBean();
        long firstCpu = io.stackreq.apps.AppMain.processCpuNanos();
        Map<String, ThreadCpu> firstThreads = threadCpu();
        long startEpoch = System.currentTimeMillis(), start = System.nanoTime();
        long startThreadCpu = threads.getCurrentThreadCpuTime(), startCpu = io.stackreq.apps.AppMain.processCpuNanos();
        long units = spin(depth, (long) (seconds * 1e9));
        long endThreadCpu = threads.getCurrentThreadCpuTime(), endCpu = io.stackreq.apps.AppMain.processCpuNanos();
        long end = System.nanoTime(), endEpoch = System.currentTimeMillis();
        System.out.printf("SPIN units=%d seconds=%.6f threadCpuSeconds=%.6f cpuSeconds=%.6f startNanos=%d endNanos=%d "
                        + "startEpochMillis=%d endEpochMillis=%d settleSeconds=%.3f%n", units, (end - start) / 1e9,
                (endThreadCpu - startThreadCpu) / 1e9, (endCpu - startCpu) / 1e9, start, end, startEpoch, endEpoch,
                settleSeconds);
        Map<String, ThreadCpu> lastThreads = threadCpu();
        long lastCpu = io.stackreq.apps.AppMain.processCpuNanos(), counted = 0;
        for (Map.Entry<String, ThreadCpu> thread : lastThreads.entrySet()) {
            ThreadCpu before = firstThreads.get(thread.getKey());
            long nanos = thread.getValue().nanos() - (before == null ? 0 : before.nanos());
            counted += nanos;
            System.out.printf("THREADCPU %d %s%n", nanos, thread.getValue().name());
        }
        System.out.printf("THREADCPU %d (ended)%n", Math.max(0, lastCpu - firstCpu - counted));
    }

    record ThreadCpu(String name, long nanos) {}

    /** CPU nanoseconds so far of the JIT compiler threads ("C1 CompilerThread0", "C2 CompilerThread1", ...). */
    static long compilerCpuNanos() {
        long nanos = 0;
        for (ThreadCpu thread : threadCpu().values()) {
            if (thread.name().startsWith("C1 CompilerThre") || thread.name().startsWith("C2 CompilerThre")) {
                nanos += thread.nanos();
            }
        }
        return nanos;
    }

    /** The name and CPU nanoseconds so far of every thread of this process, by thread id. */
    static Map<String, ThreadCpu> threadCpu() {
        Map<String, ThreadCpu> cpu = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    String name = Files.readString(task.resolve("comm")).strip();
                    long nanos = Long.parseLong(Files.readString(task.resolve("schedstat")).split(" ")[0]);
                    cpu.put(task.getFileName().toString(), new ThreadCpu(name, nanos));
                } catch (IOException | RuntimeException ended) {
                    // The thread ended between the listing and the read: its CPU counts as "(ended)".
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return cpu;
    }
}
