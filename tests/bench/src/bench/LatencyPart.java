package bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Deliverable 2: request-path latency from a real perf task-clock signal at stack depths 10, 50
 * and 200, from the agent's latency= histograms (CLOCK_MONOTONIC, log-linear buckets of ~12%;
 * a percentile is the upper bound of its bucket).
 */
final class LatencyPart {
    static final int[] DEPTHS = {10, 50, 200};
    private final Bench bench;

    LatencyPart(Bench bench) { this.bench = bench; }

    record Run(long[] cae, long[] walk, long[] clock, int medianFrames, long events) {}

    Run measure(Jvm jdk, int depth, int rep) throws Exception {
        Path dir = bench.work.resolve("latency").resolve(jdk.feature + "-depth" + depth + "-" + rep);
        double seconds = bench.quick ? 2.5 : 6;
        List<String> args = List.of("-Xms256m", "-Xmx256m",
                "-agentpath:" + bench.lib("libstackreq.so") + "=latency=" + dir.resolve("latency.json"),
                "-agentpath:" + bench.lib("libstackreq-perf.so") + "=interval=1ms,out=" + dir.resolve("samples.jsonl"));
        Jvm.Result result = jdk.run(dir, args, bench.classpath, "bench.DeepSpin",
                List.of(String.valueOf(depth), String.valueOf(seconds), dir.resolve("rec.jfr").toString()), 300, null);
        result.fields("SPIN");
        String json = Files.readString(dir.resolve("latency.json"));
        List<Integer> depths = Recordings.stackDepths(dir.resolve("rec.jfr"), "jdk.StackTraceRequest");
        return new Run(Recordings.latency(json, "captureAndEnqueueNanos"), Recordings.latency(json, "walkNanos"),
                Recordings.latency(json, "clockPairNanos"), depths.isEmpty() ? -1 : depths.get(depths.size() / 2), depths.size());
    }

    void run() throws Exception {
        int reps = bench.quick ? 1 : 2;
        for (Jvm jdk : bench.jdks) {
            List<List<Run>> byDepth = new ArrayList<>();
            for (int ignored : DEPTHS) byDepth.add(new ArrayList<>());
            for (int rep = 0; rep < reps; rep++) {
                for (int d = 0; d < DEPTHS.length; d++) {
                    int i = (d + rep) % DEPTHS.length;
                    Bench.progress("latency " + jdk.label() + " depth " + DEPTHS[i] + " rep " + (rep + 1));
                    byDepth.get(i).add(measure(jdk, DEPTHS[i], rep));
                }
            }
            print(jdk, byDepth, reps);
        }
    }

    /** Median over runs of element k of the chosen histogram. */
    private static double med(List<Run> runs, int which, int k) {
        List<Double> values = new ArrayList<>();
        for (Run r : runs) {
            long[] h = which == 0 ? r.cae : which == 1 ? r.walk : r.clock;
            if (h != null) values.add((double) h[k]);
        }
        return Stats.median(values);
    }

    private void print(Jvm jdk, List<List<Run>> byDepth, int reps) {
        bench.emit("## Request path latency, " + jdk.label());
        bench.emit("");
        bench.emit("RequestStackTrace from a perf task-clock signal (1 ms) on a thread spinning at the given Java stack "
                + "depth, compiled frames; only requests taken at full depth count (a JFR recording of "
                + "jdk.StackTraceRequest runs while the thread is at depth). capture-and-enqueue = the request minus "
                + "the AsyncGetCallTrace walk; clock pair = two back-to-back clock reads (what the measurement itself "
                + "costs; about one pair is inside capture-and-enqueue). Percentiles are bucket upper bounds (±12%)"
                + (reps > 1 ? "; median of " + reps + " runs." : "."));
        bench.emit("");
        bench.emit("| depth | frames (median) | requests | capture-and-enqueue p50 / p90 / p99 / max | walk p50 / p90 / p99 / max "
                + "| clock pair p50 / p99 | (c&e + walk) ÷ walk, p50 / p99 |");
        bench.emit("|---|---|---|---|---|---|---|");
        for (int d = 0; d < DEPTHS.length; d++) {
            List<Run> runs = byDepth.get(d);
            List<Double> frames = new ArrayList<>(), counts = new ArrayList<>();
            for (Run r : runs) {
                frames.add((double) r.medianFrames);
                counts.add((double) (r.walk == null ? 0 : r.walk[0]));
            }
            String cae = quad(runs, 0), walk = quad(runs, 1);
            String clock = Stats.nanos(med(runs, 2, 1)) + " / " + Stats.nanos(med(runs, 2, 3));
            double r50 = (med(runs, 0, 1) + med(runs, 1, 1)) / med(runs, 1, 1);
            double r99 = (med(runs, 0, 3) + med(runs, 1, 3)) / med(runs, 1, 3);
            bench.emit("| " + DEPTHS[d] + " | " + Stats.f0(Stats.median(frames)) + " | " + Stats.f0(Stats.median(counts)) + " | "
                    + cae + " | " + walk + " | " + clock + " | " + Stats.f3(r50) + " / " + Stats.f3(r99) + " |");
        }
        bench.emit("");
    }

    private static String quad(List<Run> runs, int which) {
        return Stats.nanos(med(runs, which, 1)) + " / " + Stats.nanos(med(runs, which, 2)) + " / "
                + Stats.nanos(med(runs, which, 3)) + " / " + Stats.nanos(med(runs, which, 4));
    }
}
