package bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The cost of native=on: request latency from a real perf task-clock signal (1 ms) with
 * native=off and native=on side by side, runs alternated, on a thread in Java code (DeepSpin at
 * depth 50: the unwinder looks the PC up once and stops) and on a thread in C code (DeflateSpin:
 * zlib, built without frame pointers, unwound with its .eh_frame rows). From the agent's latency=
 * histograms; percentiles are bucket upper bounds (±12%).
 */
final class NativeFramesPart {
    private final Bench bench;

    NativeFramesPart(Bench bench) { this.bench = bench; }

    record Run(long[] walk, long[] whole, int medianFrames, long events) {}

    private Run measure(Jvm jdk, String workload, String nativeOption, int rep) throws Exception {
        Path dir = bench.work.resolve("native").resolve(jdk.feature + "-" + workload + "-" + nativeOption + "-" + rep);
        double seconds = bench.quick ? 2.5 : 6;
        List<String> args = List.of("-Xms256m", "-Xmx256m",
                "-agentpath:" + bench.lib("libstackreq.so") + "=native=" + nativeOption + ",latency="
                        + dir.resolve("latency.json"),
                "-agentpath:" + bench.lib("libstackreq-perf.so") + "=interval=1ms,out=" + dir.resolve("samples.jsonl"));
        String recording = dir.resolve("rec.jfr").toString();
        List<String> mainArgs = workload.equals("java")
                ? List.of("50", String.valueOf(seconds), recording) : List.of(String.valueOf(seconds), recording);
        Jvm.Result result = jdk.run(dir, args, bench.classpath, workload.equals("java") ? "bench.DeepSpin"
                : "bench.DeflateSpin", mainArgs, 300, null);
        result.fields("SPIN");
        String json = Files.readString(dir.resolve("latency.json"));
        List<Integer> depths = Recordings.stackDepths(dir.resolve("rec.jfr"), "jdk.StackTraceRequest");
        return new Run(Recordings.latency(json, "walkNanos"), Recordings.latency(json, "wholeNanos"),
                depths.isEmpty() ? -1 : depths.get(depths.size() / 2), depths.size());
    }

    void run() throws Exception {
        int reps = bench.quick ? 2 : 3;
        for (Jvm jdk : bench.jdks) {
            bench.emit("## native=on cost, " + jdk.label());
            bench.emit("");
            bench.emit("RequestStackTrace from a perf task-clock signal (1 ms), native=off and native=on alternated, "
                    + reps + " runs each, medians. java: DeepSpin at depth 50 (PC in JIT code: no native frames); "
                    + "C: DeflateSpin (zlib at level 9, no frame pointers: its frames unwound with .eh_frame rows). "
                    + "walks = the native unwind (native=on) and every AsyncGetCallTrace walk; whole = entry to "
                    + "return. Percentiles are bucket upper bounds (±12%).");
            bench.emit("");
            bench.emit("| workload | native | frames (median) | requests | walks p50 / p99 | whole p50 / p99 "
                    + "| whole on ÷ off, p50 / p99 |");
            bench.emit("|---|---|---|---|---|---|---|");
            for (String workload : List.of("java", "C")) {
                List<Run> off = new ArrayList<>(), on = new ArrayList<>();
                for (int rep = 0; rep < reps; rep++) {
                    Bench.progress("native " + jdk.label() + " " + workload + " rep " + (rep + 1));
                    off.add(measure(jdk, workload, "off", rep));
                    on.add(measure(jdk, workload, "on", rep));
                }
                row(workload, "off", off, null);
                row(workload, "on", on, off);
            }
            bench.emit("");
        }
    }

    private void row(String workload, String nativeOption, List<Run> runs, List<Run> baseline) {
        List<Double> frames = new ArrayList<>(), events = new ArrayList<>();
        for (Run r : runs) {
            frames.add((double) r.medianFrames);
            events.add((double) r.events);
        }
        String ratio = baseline == null ? "" : Stats.f3(med(runs, true, 1) / med(baseline, true, 1)) + " / "
                + Stats.f3(med(runs, true, 3) / med(baseline, true, 3));
        bench.emit("| " + workload + " | " + nativeOption + " | " + Stats.f0(Stats.median(frames)) + " | "
                + Stats.f0(Stats.median(events)) + " | " + Stats.nanos(med(runs, false, 1)) + " / "
                + Stats.nanos(med(runs, false, 3)) + " | " + Stats.nanos(med(runs, true, 1)) + " / "
                + Stats.nanos(med(runs, true, 3)) + " | " + ratio + " |");
    }

    /** Median over runs of element k of the whole (or walks) histogram. */
    private static double med(List<Run> runs, boolean whole, int k) {
        List<Double> values = new ArrayList<>();
        for (Run r : runs) {
            long[] h = whole ? r.whole : r.walk;
            if (h != null) values.add((double) h[k]);
        }
        return Stats.median(values);
    }
}
