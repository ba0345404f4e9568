package bench;

import java.lang.management.ManagementFactory;

/**
 * A fixed amount of single-threaded work. {@link #main} runs {@code warmup} rounds, then
 * {@code rounds} measured rounds, and prints one line the harness parses:
 * {@code BENCH name=h2 rounds=.. seconds=.. roundsPerSecond=.. cpuSeconds=.. startNanos=.. endNanos=..
 * startEpochMillis=.. endEpochMillis=.. checksum=..}. {@code startNanos}/{@code endNanos} are
 * {@code System.nanoTime()} (CLOCK_MONOTONIC on Linux, the clock of the perf samples) and the
 * epoch times bound the phase for JFR readers; {@code cpuSeconds} is the CPU time of the whole
 * process (every thread: agents, JFR, GC, JIT) during the measured rounds.
 */
public abstract class Workload {

    protected abstract String name();

    protected abstract void setUp() throws Exception;

    /** One round of work; returns something that depends on the work so it cannot be skipped. */
    protected abstract long round(int index) throws Exception;

    protected void tearDown() throws Exception {}

    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    static Workload named(String name) {
        switch (name) {
            case "h2": return new H2Workload();
            case "lucene": return new LuceneWorkload();
            case "jackson": return new JacksonWorkload();
            default: throw new IllegalArgumentException("unknown workload '" + name + "' (h2, lucene, jackson)");
        }
    }

    /** Usage: {@code Workload NAME WARMUP_ROUNDS MEASURED_ROUNDS}. */
    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: bench.Workload h2|lucene|jackson WARMUP_ROUNDS MEASURED_ROUNDS");
            System.exit(2);
        }
        Workload workload = named(args[0]);
        int warmup = Integer.parseInt(args[1]);
        int rounds = Integer.parseInt(args[2]);
        workload.setUp();
        long checksum = 0;
        for (int i = 0; i < warmup; i++) checksum += workload.round(i);
        long startEpoch = System.currentTimeMillis();
        long startCpu = processCpuNanos();
        long start = System.nanoTime();
        for (int i = 0; i < rounds; i++) checksum += workload.round(warmup + i);
        long end = System.nanoTime();
        long endCpu = processCpuNanos();
        long endEpoch = System.currentTimeMillis();
        workload.tearDown();
        double seconds = (end - start) / 1e9;
        System.out.printf("BENCH name=%s rounds=%d seconds=%.6f roundsPerSecond=%.3f cpuSeconds=%.6f startNanos=%d "
                        + "endNanos=%d startEpochMillis=%d endEpochMillis=%d checksum=%d%n",
                workload.name(), rounds, seconds, rounds / seconds, (endCpu - startCpu) / 1e9, start, end,
                startEpoch, endEpoch, checksum);
    }
}
