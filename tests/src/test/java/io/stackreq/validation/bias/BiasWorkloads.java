package io.stackreq.validation.bias;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The bias benchmark's workloads: each runs on its own thread ({@code bias-<name>}) and alternates
 * a hot phase, whose CPU time is spent on one known source line (the <em>hot line</em>), with a
 * cold phase of cheap arithmetic on other lines. The phase lengths are chosen for about 60% hot
 * (by construction) and each phase's CPU time is measured with the thread CPU clock (so other load
 * on the machine does not move the split). The truth a profiler must reproduce is
 * {@code hot CPU time / the thread's whole CPU time}: the hot line's share of the thread's samples.
 *
 * <ul>
 * <li>{@code arraycopy}: {@link #copyPhase}, a loop of {@code System.arraycopy} calls (256 KiB each):
 * the time is in the copy stub, where a walk from the signal's registers has no Java frame.</li>
 * <li>{@code inlined}: {@link #inlinedPhase} calls the small {@link #mix} in a counted loop; C2 inlines
 * it, so its line exists only in the debug information of the caller's code.</li>
 * <li>{@code counted}: {@link #countedPhase}, one long counted loop without calls (a gather over a
 * 32 MiB table), where C2 leaves a safepoint poll only every thousand iterations.</li>
 * <li>{@code jni}: {@link #jniPhase} calls {@link #nativeBurn} (C code, libbiasjni.so) in a loop: the
 * time is in native code, attributed to the Java line that called it.</li>
 * <li>{@code chase}: {@link #chasePhase} follows a random cycle through a 64 MiB table, one step per
 * call of the small {@link #next}, which C2 inlines: nearly all the time is its load, which misses
 * the caches, and a signal that comes while the load waits is taken after it, at the caller's next
 * instruction, which is exactly where {@link #next}'s debug record ends. The debug record at or after
 * the signal's PC is {@link #next}'s, the one strictly after it the caller's: the workload tells which
 * walk gives the time to the line that spent it.</li>
 * </ul>
 *
 * <p>Usage: {@code BiasWorkloads <truth-file> <cpu-seconds-per-workload> <workload>[,<workload>...]}
 * (each workload runs for that much of its thread's CPU time);
 * system property {@code stackreq.biasjni} = path of libbiasjni.so (for {@code jni}). Each
 * workload is first warmed up (and its phase lengths calibrated) on a thread named
 * {@code bias-warmup}, so the measured thread runs compiled code. The truth file gets one line
 * per workload: {@code workload=.. thread=.. hotNs=.. coldNs=.. threadNs=.. rounds=..}.
 */
public final class BiasWorkloads {
    public static final String CLASS_NAME = BiasWorkloads.class.getName();
    /** Java native methods of the workload: their frames are skipped when attributing a sample. */
    public static final String NATIVE_METHOD = "nativeBurn";
    public static final List<String> ALL = List.of("arraycopy", "inlined", "counted", "jni", "chase");

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final long HOT_PHASE_NANOS = 6_000_000;
    private static final long COLD_PHASE_NANOS = 4_000_000;
    private static final int COPY_LENGTH = 1 << 16;        // ints: 256 KiB per copy
    private static final int TABLE_MASK = (1 << 23) - 1;   // ints: 32 MiB table
    private static final int LINKS = 1 << 24;              // ints: 64 MiB cycle
    private static final int BURN_ROUNDS = 20_000;
    private static final int WARMUP_CALLS = 12_000;        // C2 compiles after ~5,000 invocations

    private static final int[] SOURCE = new int[COPY_LENGTH];
    private static final int[] TARGET = new int[COPY_LENGTH];
    private static final int[] TABLE = new int[TABLE_MASK + 1];
    /** chase: LINKS[i] is the next index of one cycle through every index (Sattolo's shuffle); built when run. */
    private static int[] links = new int[0];
    private static int chaseAt;

    // Results go to a field so the JIT cannot drop the work.
    static volatile long sink;

    private BiasWorkloads() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            throw new IllegalArgumentException("usage: BiasWorkloads <truth-file> <seconds> <workload,...>");
        }
        Path truthFile = Path.of(args[0]);
        double seconds = Double.parseDouble(args[1]);
        List<String> workloads = List.of(args[2].split(","));
        for (String name : workloads) {
            if (!ALL.contains(name)) {
                throw new IllegalArgumentException("unknown workload " + name + " (known: " + ALL + ")");
            }
        }
        if (workloads.contains("jni")) {
            System.load(System.getProperty("stackreq.biasjni"));
        }
        for (int i = 0; i < TABLE.length; i++) {
            TABLE[i] = i * 0x9E3779B9;
        }
        if (workloads.contains("chase")) {
            links = cycle(LINKS);
        }
        List<String> lines = new ArrayList<>();
        for (String name : workloads) {
            long[] units = new long[2];
            runOn("bias-warmup", () -> calibrate(name, units));
            long[] result = new long[5];
            runOn("bias-" + name, () -> measure(name, (int) units[0], (int) units[1], seconds, result));
            lines.add(String.format(Locale.ROOT, "workload=%s thread=bias-%s hotNs=%d coldNs=%d threadNs=%d rounds=%d",
                    name, name, result[0], result[1], result[2], result[3]));
            System.out.println(lines.get(lines.size() - 1));
        }
        try {
            Files.write(truthFile, lines, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void runOn(String threadName, Runnable body) throws InterruptedException {
        Thread thread = new Thread(body, threadName);
        thread.start();
        thread.join();
    }

    /**
     * Gets the phases compiled by C2 (many short calls: a few long ones would leave them
     * interpreted, where System.arraycopy is a real native call) and sets units[0], units[1] for
     * ~6 ms hot, ~4 ms cold.
     */
    private static void calibrate(String name, long[] units) {
        int[] small = new int[64];
        int[] smallTarget = new int[64];
        for (int round = 0; round < WARMUP_CALLS; round++) {
            // Source level 11: the workloads run on JDK 11 too (tests/pom.xml).
            switch (name) {
                case "arraycopy":
                    sink += copyPhase(small, smallTarget, 4);
                    break;
                case "inlined":
                    sink += inlinedPhase(sink, 100);
                    break;
                case "counted":
                    sink += countedPhase(100);
                    break;
                case "jni":
                    sink += jniPhase(sink, 4, 10);
                    break;
                case "chase":
                    sink += chasePhase(links, 100);
                    break;
                default:
                    throw new IllegalArgumentException(name);
            }
            cold(100);
        }
        // Rescales both phases until five rounds in a row are within 15% of their targets.
        long hotUnits = 1;
        long coldUnits = 1;
        int stable = 0;
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (stable < 5 && System.nanoTime() < deadline) {
            long start = cpuNanos();
            hot(name, (int) hotUnits);
            long middle = cpuNanos();
            cold((int) coldUnits);
            long stop = cpuNanos();
            boolean close = near(middle - start, HOT_PHASE_NANOS) && near(stop - middle, COLD_PHASE_NANOS);
            stable = close ? stable + 1 : 0;
            hotUnits = scale(hotUnits, middle - start, HOT_PHASE_NANOS);
            coldUnits = scale(coldUnits, stop - middle, COLD_PHASE_NANOS);
        }
        units[0] = hotUnits;
        units[1] = coldUnits;
    }

    private static boolean near(long nanos, long target) {
        return Math.abs(nanos - target) < target * 0.15;
    }

    private static long scale(long units, long nanos, long target) {
        double factor = nanos <= 0 ? 16 : Math.min(16, (double) target / nanos);
        return Math.max(1, Math.min(Integer.MAX_VALUE / 2, Math.round(units * factor)));
    }

    /** result: hot ns, cold ns, the thread's whole CPU ns, rounds. */
    private static void measure(String name, int hotUnits, int coldUnits, double seconds, long[] result) {
        long hotNanos = 0;
        long coldNanos = 0;
        long rounds = 0;
        // Runs for `seconds` of this thread's CPU time (a loaded machine stretches the wall time),
        // but gives up at 8 times that in wall time.
        long cpuEnd = cpuNanos() + (long) (seconds * 1e9);
        long wallEnd = System.nanoTime() + (long) (8 * seconds * 1e9);
        while (cpuNanos() < cpuEnd && System.nanoTime() < wallEnd) {
            long start = cpuNanos();
            hot(name, hotUnits);
            long middle = cpuNanos();
            cold(coldUnits);
            long stop = cpuNanos();
            hotNanos += middle - start;
            coldNanos += stop - middle;
            rounds++;
        }
        result[0] = hotNanos;
        result[1] = coldNanos;
        result[3] = rounds;
        result[2] = cpuNanos();
    }

    private static void hot(String name, int units) {
        switch (name) {
            case "arraycopy":
                sink += copyPhase(SOURCE, TARGET, units);
                break;
            case "inlined":
                sink += inlinedPhase(sink, units);
                break;
            case "counted":
                sink += countedPhase(units);
                break;
            case "jni":
                sink += jniPhase(sink, units, BURN_ROUNDS);
                break;
            case "chase":
                sink += chasePhase(links, units);
                break;
            default:
                throw new IllegalArgumentException(name);
        }
    }

    private static void cold(int units) {
        sink += coldPhase((int) sink, units);
    }

    // ---- the phases: each hot line is alone on its line; HotLines finds it in this class file ----

    static int copyPhase(int[] source, int[] target, int copies) {
        for (int k = 0; k < copies; k++) {
            System.arraycopy(source, 0, target, 0, source.length);
        }
        return target[copies % target.length];
    }

    static long inlinedPhase(long acc, int iterations) {
        for (int i = 0; i < iterations; i++) {
            acc = mix(acc, i);
        }
        return acc;
    }

    static long mix(long x, int i) {
        return x / ((i & 7) + 3) / ((i & 3) + 5) + x * 0x9E3779B97F4A7C15L + i;
    }

    static long countedPhase(int iterations) {
        long sum = 0;
        for (int i = 0; i < iterations; i++) {
            sum += TABLE[(i * 40503) & TABLE_MASK];
        }
        return sum;
    }

    static long jniPhase(long acc, int calls, int rounds) {
        for (int k = 0; k < calls; k++) {
            acc += nativeBurn(acc, rounds);
        }
        return acc;
    }

    static native long nativeBurn(long seed, int rounds);

    static long chasePhase(int[] table, int steps) {
        int at = chaseAt;
        for (int i = 0; i < steps; i++) {
            at = next(table, at);
        }
        chaseAt = at;
        return at;
    }

    static int next(int[] table, int at) {
        return table[at];
    }

    /** A random cyclic permutation of 0..n-1 (Sattolo): following it from any index visits every index. */
    private static int[] cycle(int n) {
        int[] next = new int[n];
        for (int i = 0; i < n; i++) {
            next[i] = i;
        }
        java.util.SplittableRandom random = new java.util.SplittableRandom(17);
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i);
            int swap = next[i];
            next[i] = next[j];
            next[j] = swap;
        }
        return next;
    }

    static int coldPhase(int acc, int iterations) {
        for (int i = 0; i < iterations; i++) {
            acc = acc * 31 + (i ^ (acc >>> 7));
        }
        return acc;
    }

    private static long cpuNanos() {
        return THREADS.getCurrentThreadCpuTime();
    }
}
