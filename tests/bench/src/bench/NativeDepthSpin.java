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
 * <p>Usage: {@code NativeDepthSpin LIBRARY DEPTH SECONDS}. A 0.3 s spin first (the JVM's start-up
 * work settles), then the measured one. Prints {@code SPIN units=.. seconds=.. threadCpuSeconds=..
 * cpuSeconds=.. startNanos=.. endNanos=.. startEpochMillis=.. endEpochMillis=..}: units of work
 * done, the spinning thread's CPU time (a profiler's signal handler runs on it) and the whole
 * process's (its other threads too), and the bounds of the measured spin for the sample readers.
 * Then one line per thread of the process, {@code THREADCPU NANOS NAME}: its CPU time during the
 * measured spin (from {@code /proc/self/task/TID/schedstat}, nanoseconds, where {@code stat}'s
 * ticks are 10 ms), and {@code THREADCPU NANOS (ended)} for the CPU of threads that ended before
 * the second reading.
 */
public final class NativeDepthSpin {
    static native long spin(int depth, long nanos);

    public static void main(String[] args) {
        System.load(args[0]);
        int depth = Integer.parseInt(args[1]);
        double seconds = Double.parseDouble(args[2]);
        spin(depth, 300_000_000L);
        var threads = ManagementFactory.getThreadMXBean();
        long firstCpu = Workload.processCpuNanos();
        Map<String, ThreadCpu> firstThreads = threadCpu();
        long startEpoch = System.currentTimeMillis(), start = System.nanoTime();
        long startThreadCpu = threads.getCurrentThreadCpuTime(), startCpu = Workload.processCpuNanos();
        long units = spin(depth, (long) (seconds * 1e9));
        long endThreadCpu = threads.getCurrentThreadCpuTime(), endCpu = Workload.processCpuNanos();
        long end = System.nanoTime(), endEpoch = System.currentTimeMillis();
        System.out.printf("SPIN units=%d seconds=%.6f threadCpuSeconds=%.6f cpuSeconds=%.6f startNanos=%d endNanos=%d "
                        + "startEpochMillis=%d endEpochMillis=%d%n", units, (end - start) / 1e9,
                (endThreadCpu - startThreadCpu) / 1e9, (endCpu - startCpu) / 1e9, start, end, startEpoch, endEpoch);
        Map<String, ThreadCpu> lastThreads = threadCpu();
        long lastCpu = Workload.processCpuNanos(), counted = 0;
        for (Map.Entry<String, ThreadCpu> thread : lastThreads.entrySet()) {
            ThreadCpu before = firstThreads.get(thread.getKey());
            long nanos = thread.getValue().nanos() - (before == null ? 0 : before.nanos());
            counted += nanos;
            System.out.printf("THREADCPU %d %s%n", nanos, thread.getValue().name());
        }
        System.out.printf("THREADCPU %d (ended)%n", Math.max(0, lastCpu - firstCpu - counted));
    }

    record ThreadCpu(String name, long nanos) {}

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
