package io.stackreq.validation.bias;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.validation.bias.HotLines.HotLine;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Runs the bias workloads ({@link BiasWorkloads}) once per profiler, one JVM at a time, and
 * measures, per workload, the share of the workload thread's samples that the profiler attributes
 * to the hot line, against the truth that run measured itself.
 *
 * <p>Attribution of one sample: a failed sample (the event says {@code failed}, the request was
 * refused, or async-profiler's stack is only an error frame such as {@code [unknown_Java]})
 * counts as failed; otherwise the topmost frame of a {@link BiasWorkloads} method that is not
 * the native {@code nativeBurn} decides: the sample is hot when that frame is the hot method at
 * the hot line ({@link HotLines}). Frames above it (the arraycopy stub, JDK code, C frames of
 * the JNI library) belong to that line, as their cost does. The share is hot samples / all
 * samples of the thread, failed ones included: a sample a profiler cannot place is not on the
 * hot line in its profile either.
 */
public final class BiasBenchmark {
    /** What one workload run measured of itself (its thread's CPU time, by phase). */
    public record Truth(String workload, String thread, long hotNanos, long coldNanos, long threadNanos, long rounds) {
        public double percent() {
            return 100.0 * hotNanos / threadNanos;
        }
    }

    /**
     * One profiler on one workload; hotTops counts the hot samples by their top frame ("function
     * [library]" for stackreq's native frames, see {@link #describe}).
     */
    public record Cell(Truth truth, int samples, int failed, int hot, Map<String, Integer> placed,
            Map<String, Integer> hotTops) {
        /** Share of the thread's samples on the hot line, in percent (NaN without samples). */
        public double share() {
            return samples == 0 ? Double.NaN : 100.0 * hot / samples;
        }

        /** share - truth, in percentage points. */
        public double error() {
            return share() - truth.percent();
        }

        /** Share of the hot samples whose top frame passes the test, in percent (NaN without hot samples). */
        public double hotTopPercent(Predicate<String> topFrame) {
            int matching = hotTops.entrySet().stream().filter(e -> topFrame.test(e.getKey()))
                    .mapToInt(Map.Entry::getValue).sum();
            return hot == 0 ? Double.NaN : 100.0 * matching / hot;
        }

        /** The most frequent top frame of the hot samples and its share of them: "name 97.1%". */
        public String commonestHotTop() {
            return hotTops.entrySet().stream().max(Map.Entry.comparingByValue())
                    .map(e -> String.format(Locale.ROOT, "%s %.1f%%", e.getKey(), 100.0 * e.getValue() / hot))
                    .orElse("-");
        }

        public double failedPercent() {
            return samples == 0 ? Double.NaN : 100.0 * failed / samples;
        }

        /** The most frequent attributions, for reports: "copyPhase:53 812, ...". */
        public String topPlaces(int count) {
            List<String> lines = new ArrayList<>();
            placed.entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue()).limit(count)
                    .forEach(e -> lines.add(e.getKey() + " " + e.getValue()));
            return String.join(", ", lines);
        }
    }

    /** Everything measured on one JDK; a profiler may have run a subset of the workloads. */
    public record Result(Jdk jdk, List<String> workloads, List<Profiler> profilers,
            Map<Profiler, Map<String, Cell>> cells, Map<String, HotLine> hotLines) {
        /** null when this profiler did not run this workload. */
        public Cell cell(Profiler profiler, String workload) {
            return cells.get(profiler).get(workload);
        }
    }

    /** The class name stackreq gives the frames of the JVM's stubs and generated code. */
    public static final String JVM_STUBS = "jvm-stubs";

    private static final Pattern TRUTH = Pattern.compile(
            "workload=(\\S+) thread=(\\S+) hotNs=(\\d+) coldNs=(\\d+) threadNs=(\\d+) rounds=(\\d+)");
    private static final Pattern SAMPLE_LINE = Pattern.compile(
            "\"type\":\"sample\".*\"tid\":(\\d+).*\"error\":(\\d+)");

    private BiasBenchmark() {
    }

    /**
     * Runs, on jdk, each profiler of the plan on its workloads (one JVM per profiler); seconds =
     * CPU time of each workload's thread.
     */
    public static Result run(Jdk jdk, Path dir, Map<Profiler, List<String>> plan, double seconds) {
        Map<String, HotLine> hotLines = HotLines.read();
        Map<Profiler, Map<String, Cell>> cells = new LinkedHashMap<>();
        List<String> workloads = new ArrayList<>();
        plan.forEach((profiler, names) -> {
            Path runDir = dir.resolve("bias-" + jdk.feature() + "-" + profiler.name().toLowerCase());
            cells.put(profiler, runOne(jdk, runDir, profiler, names, seconds, hotLines));
            names.stream().filter(n -> !workloads.contains(n)).forEach(workloads::add);
        });
        workloads.sort(java.util.Comparator.comparing(BiasWorkloads.ALL::indexOf));
        return new Result(jdk, List.copyOf(workloads), List.copyOf(plan.keySet()), cells, hotLines);
    }

    /** Every available profiler on every workload: tests/validate. */
    public static Map<Profiler, List<String>> fullPlan(Jdk jdk, boolean withDefaultFlags) {
        Map<Profiler, List<String>> plan = new LinkedHashMap<>();
        for (Profiler profiler : Profiler.values()) {
            if (profiler.availableOn(jdk) && (withDefaultFlags || profiler != Profiler.STACKREQ_DEFAULT_FLAGS)) {
                plan.put(profiler, BiasWorkloads.ALL);
            }
        }
        return plan;
    }

    /**
     * What the CI assertions need: stackreq and async-profiler (cpu) on every workload, stackreq
     * biased on arraycopy, stackreq native=on on the two workloads whose time is in native code.
     */
    public static Map<Profiler, List<String>> ciPlan() {
        Map<Profiler, List<String>> plan = new LinkedHashMap<>();
        plan.put(Profiler.STACKREQ, BiasWorkloads.ALL);
        plan.put(Profiler.STACKREQ_BIASED, List.of("arraycopy"));
        plan.put(Profiler.STACKREQ_NATIVE, List.of("arraycopy", "jni"));
        plan.put(Profiler.ASYNC_PROFILER_CPU, BiasWorkloads.ALL);
        return plan;
    }

    static Map<String, Cell> runOne(Jdk jdk, Path dir, Profiler profiler, List<String> workloads, double seconds,
            Map<String, HotLine> hotLines) {
        Path recording = dir.resolve("recording.jfr").toAbsolutePath();
        Path samples = dir.resolve("samples.jsonl").toAbsolutePath();
        Path truthFile = dir.resolve("truth.txt").toAbsolutePath();
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        JvmRun run = JvmRun.on(jdk, dir).name("bias");
        profiler.configure(run, dir, recording, samples);
        run.flags("-Dstackreq.biasjni=" + biasJni())
                .main(BiasWorkloads.class, truthFile.toString(), Double.toString(seconds), String.join(",", workloads))
                .timeout(Duration.ofSeconds(60 + (long) (workloads.size() * (seconds + 2) * 3)))
                .run();
        Map<String, Truth> truths = readTruths(truthFile);
        return attribute(profiler, recording, samples, truths, hotLines);
    }

    static Path biasJni() {
        return JvmRun.requesterLibrary().resolveSibling("libbiasjni.so").toAbsolutePath();
    }

    static Map<String, Truth> readTruths(Path file) {
        Map<String, Truth> truths = new LinkedHashMap<>();
        try {
            for (String line : Files.readAllLines(file)) {
                Matcher m = TRUTH.matcher(line);
                if (!m.matches()) {
                    throw new IllegalStateException("bad truth line in " + file + ": " + line);
                }
                truths.put(m.group(1), new Truth(m.group(1), m.group(2), Long.parseLong(m.group(3)),
                        Long.parseLong(m.group(4)), Long.parseLong(m.group(5)), Long.parseLong(m.group(6))));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return truths;
    }

    /** Reads one run's recording (and, for stackreq, its samples file) into one cell per workload. */
    static Map<String, Cell> attribute(Profiler profiler, Path recording, Path samples, Map<String, Truth> truths,
            Map<String, HotLine> hotLines) {
        Map<String, String> workloadOfThread = new HashMap<>();
        truths.values().forEach(t -> workloadOfThread.put(t.thread(), t.workload()));
        Map<String, int[]> counts = new HashMap<>();   // workload -> samples, failed, hot
        Map<String, Map<String, Integer>> placed = new HashMap<>();
        Map<String, Map<String, Integer>> hotTops = new HashMap<>();
        Map<Long, String> workloadOfTid = new HashMap<>();
        try (RecordingFile file = new RecordingFile(recording)) {
            while (file.hasMoreEvents()) {
                RecordedEvent event = file.readEvent();
                if (!event.getEventType().getName().equals(profiler.eventType())) {
                    continue;
                }
                RecordedThread thread = event.hasField("sampledThread") ? event.getValue("sampledThread")
                        : event.getThread();
                String workload = thread == null ? null : workloadOfThread.get(thread.getJavaName());
                if (workload == null) {
                    continue;
                }
                workloadOfTid.put(thread.getOSThreadId(), workload);
                int[] count = counts.computeIfAbsent(workload, w -> new int[3]);
                count[0]++;
                String place = place(event);
                if (place == null) {
                    count[1]++;
                    place = "(failed)";
                } else if (place.equals(hotLines.get(workload).toString())) {
                    count[2]++;
                    hotTops.computeIfAbsent(workload, w -> new HashMap<>())
                            .merge(describe(event.getStackTrace().getFrames().get(0)), 1, Integer::sum);
                }
                placed.computeIfAbsent(workload, w -> new HashMap<>()).merge(place, 1, Integer::sum);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + recording, e);
        }
        if (profiler.isStackreq()) {
            countRefusedRequests(samples, workloadOfTid, counts, placed);
        }
        Map<String, Cell> cells = new LinkedHashMap<>();
        for (Truth truth : truths.values()) {
            int[] count = counts.getOrDefault(truth.workload(), new int[3]);
            cells.put(truth.workload(), new Cell(truth, count[0], count[1], count[2],
                    Map.copyOf(placed.getOrDefault(truth.workload(), Map.of())),
                    Map.copyOf(hotTops.getOrDefault(truth.workload(), Map.of()))));
        }
        return cells;
    }

    /** Samples whose RequestStackTrace returned an error have no event: failed samples. */
    private static void countRefusedRequests(Path samples, Map<Long, String> workloadOfTid, Map<String, int[]> counts,
            Map<String, Map<String, Integer>> placed) {
        try (var lines = Files.lines(samples)) {
            lines.forEach(line -> {
                Matcher m = SAMPLE_LINE.matcher(line);
                if (m.find() && !m.group(2).equals("0")) {
                    String workload = workloadOfTid.get(Long.parseLong(m.group(1)));
                    if (workload != null) {
                        int[] count = counts.computeIfAbsent(workload, w -> new int[3]);
                        count[0]++;
                        count[1]++;
                        placed.computeIfAbsent(workload, w -> new HashMap<>())
                                .merge("(refused " + m.group(2) + ")", 1, Integer::sum);
                    }
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + samples, e);
        }
    }

    /**
     * "method:line" of the topmost BiasWorkloads frame other than the native method; "(elsewhere)
     * top-frame" when the stack has none; null for a failed sample.
     */
    static String place(RecordedEvent event) {
        if (event.hasField("failed") && event.getBoolean("failed")) {
            return null;
        }
        RecordedStackTrace stack = event.getStackTrace();
        if (stack == null || stack.getFrames().isEmpty()) {
            return null;
        }
        for (RecordedFrame frame : stack.getFrames()) {
            RecordedMethod method = frame.getMethod();
            if (method != null && method.getType() != null
                    && method.getType().getName().replace('/', '.').equals(BiasWorkloads.CLASS_NAME)
                    && !method.getName().equals(BiasWorkloads.NATIVE_METHOD)) {
                return method.getName() + ":" + frame.getLineNumber();
            }
        }
        String top = describe(stack.getFrames().get(0));
        if (stack.getFrames().size() == 1 && top.startsWith("[") && top.endsWith("]")) {
            return null;  // async-profiler's error frames: [unknown_Java], [not_walkable_Java], ...
        }
        return "(elsewhere) " + top;
    }

    /**
     * "Class.method" of a Java frame; "function [library]" of a native frame stackreq's native=on
     * wrote (its class is the library's file name, {@code jvm-stubs} for the JVM's stubs).
     */
    static String describe(RecordedFrame frame) {
        RecordedMethod method = frame.getMethod();
        if (method == null) {
            return "?";
        }
        String type = method.getType() == null ? "" : method.getType().getName();
        if (frame.getType().equals("Native") && (type.equals(JVM_STUBS) || type.contains(".so"))) {
            return method.getName() + " [" + type + "]";
        }
        return type.isEmpty() ? method.getName() : type + "." + method.getName();
    }
}
