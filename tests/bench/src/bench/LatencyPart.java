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

    /** wholeSecond and bareSecond: with walker=vmstructs, the figure timed second (warmed), else null. */
    record Run(long[] cae, long[] walk, long[] clock, long[] bare, long[] whole, long[] wholeSecond,
            long[] bareSecond, int medianFrames, long events) {}

    Run measure(Jvm jdk, int depth, int rep) throws Exception {
        Path dir = bench.work.resolve("latency").resolve(jdk.feature + "-depth" + depth + "-" + rep);
        double seconds = bench.quick ? 2.5 : 6;
        List<String> args = List.of("-Xms256m", "-Xmx256m",
                "-agentpath:" + bench.lib("libstackreq.so") + "=latency=" + dir.resolve("latency.json")
                        + (bench.walker.isEmpty() ? "" : ",walker=" + bench.walker),
                "-agentpath:" + bench.lib("libstackreq-perf.so") + "=interval=1ms,out=" + dir.resolve("samples.jsonl"));
        Jvm.Result result = jdk.run(dir, args, bench.classpath, "bench.DeepSpin",
                List.of(String.valueOf(depth), String.valueOf(seconds), dir.resolve("rec.jfr").toString()), 300, null);
        result.fields("SPIN");
        String json = Files.readString(dir.resolve("latency.json"));
        List<Integer> depths = Recordings.stackDepths(dir.resolve("rec.jfr"), "jdk.StackTraceRequest");
        return new Run(Recordings.latency(json, "captureAndEnqueueNanos"), Recordings.latency(json, "walkNanos"),
                Recordings.latency(json, "clockPairNanos"), Recordings.latency(json, "firstWalkNanos"),
                Recordings.latency(json, "wholeNanos"),
                alternated() ? Recordings.latency(json, "wholeSecondNanos") : null,
                alternated() ? Recordings.latency(json, "firstWalkSecondNanos") : null,
                depths.isEmpty() ? -1 : depths.get(depths.size() / 2), depths.size());
    }

    /**
     * walker=vmstructs, the agent's default: the agent times the request and the bare walk by turns
     * (latency_histogram.h).
     */
    private boolean alternated() {
        return !bench.walker.equals("asgct");
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

    static final int CAE = 0, WALK = 1, CLOCK = 2, BARE = 3, WHOLE = 4, WHOLE_SECOND = 5, BARE_SECOND = 6;

    /** Median over runs of element k of the chosen histogram. */
    private static double med(List<Run> runs, int which, int k) {
        List<Double> values = new ArrayList<>();
        for (Run r : runs) {
            long[] h = switch (which) {
                case CAE -> r.cae;
                case WALK -> r.walk;
                case CLOCK -> r.clock;
                case BARE -> r.bare;
                case WHOLE_SECOND -> r.wholeSecond;
                case BARE_SECOND -> r.bareSecond;
                default -> r.whole;
            };
            if (h != null) values.add((double) h[k]);
        }
        return Stats.median(values);
    }

    private void print(Jvm jdk, List<List<Run>> byDepth, int reps) {
        boolean alternated = alternated();
        bench.emit("## Request path latency, " + jdk.label()
                + (bench.walker.isEmpty() ? "" : ", walker=" + bench.walker));
        bench.emit("");
        bench.emit("RequestStackTrace from a perf task-clock signal (1 ms) on a thread spinning at the given Java "
                + "stack depth, compiled frames; only requests taken at full depth count (a JFR recording of "
                + "jdk.StackTraceRequest runs while the thread is at depth). Measured in the agent (latency=) with "
                + "the TSC: bare walk = one AsyncGetCallTrace call alone (what any ASGCT-based profiler pays); "
                + "all walks = every walk of the request (with AsyncGetCallTrace: that plus the 6-frame PC-1 probe "
                + "walk for the top frame, a stub recovery when one runs, and the physical walk for the frame types; "
                + "with the VMStructs walk: the VMStructs walk, and AsyncGetCallTrace's where it leaves the request); "
                + "capture-and-enqueue = the request minus all walks; whole = entry to return. "
                + (alternated
                        ? "walker=vmstructs: the requests take turns, one in two timed first (cold), the other after "
                                + "a bare walk from the same context timed first (cold), in the same JVM; the "
                                + "figures compared are the two cold ones, and what ran second (warmed by the first) "
                                + "is shown beside them. "
                        : "The bare walk is the request's own first AsyncGetCallTrace call. ")
                + "TSC pair = two back-to-back reads (the measurement itself; about three reads fall in "
                + "capture-and-enqueue). Percentiles are bucket upper bounds (±12%)"
                + (reps > 1 ? "; median of " + reps + " runs, and the ratio of each run." : "."));
        bench.emit("");
        bench.emit("| depth | frames (median) | requests | capture-and-enqueue p50 / p90 / p99 / max "
                + "| bare walk p50 / p90 / p99 / max | all walks p50 / p99 | whole p50 / p99 "
                + "| whole ÷ bare walk, p50 / p99 | each run, p50 / p99 "
                + (alternated ? "| whole after a bare walk p50 / p99 | bare walk after the request p50 / p99 " : "")
                + "| TSC pair p50 / p99 |");
        bench.emit("|---|---|---|---|---|---|---|---|---|" + (alternated ? "---|---|" : "") + "---|");
        for (int d = 0; d < DEPTHS.length; d++) {
            List<Run> runs = byDepth.get(d);
            List<Double> frames = new ArrayList<>(), counts = new ArrayList<>();
            List<String> each = new ArrayList<>();
            for (Run r : runs) {
                frames.add((double) r.medianFrames);
                long count = r.whole == null ? 0 : r.whole[0];
                if (r.wholeSecond != null) count += r.wholeSecond[0];
                counts.add((double) count);
                if (r.whole != null && r.bare != null && r.bare[1] > 0 && r.bare[3] > 0) {
                    each.add(Stats.f3((double) r.whole[1] / r.bare[1]) + " / "
                            + Stats.f3((double) r.whole[3] / r.bare[3]));
                }
            }
            double r50 = med(runs, WHOLE, 1) / med(runs, BARE, 1);
            double r99 = med(runs, WHOLE, 3) / med(runs, BARE, 3);
            bench.emit("| " + DEPTHS[d] + " | " + Stats.f0(Stats.median(frames)) + " | "
                    + Stats.f0(Stats.median(counts)) + " | "
                    + quad(runs, CAE) + " | " + quad(runs, BARE) + " | " + pair(runs, WALK) + " | "
                    + pair(runs, WHOLE) + " | "
                    + Stats.f3(r50) + " / " + Stats.f3(r99) + " | " + String.join(" · ", each) + " | "
                    + (alternated ? pair(runs, WHOLE_SECOND) + " | " + pair(runs, BARE_SECOND) + " | " : "")
                    + pair(runs, CLOCK) + " |");
        }
        bench.emit("");
    }

    private static String pair(List<Run> runs, int which) {
        return Stats.nanos(med(runs, which, 1)) + " / " + Stats.nanos(med(runs, which, 3));
    }

    private static String quad(List<Run> runs, int which) {
        return Stats.nanos(med(runs, which, 1)) + " / " + Stats.nanos(med(runs, which, 2)) + " / "
                + Stats.nanos(med(runs, which, 3)) + " / " + Stats.nanos(med(runs, which, 4));
    }
}
