package bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Real applications (io.stackreq.apps: javac, H2, HSQLDB, Lucene, a Netty HTTP service, Jackson)
 * under four configurations, side by side: no agent; stackreq with the perf agent at 1 ms of CPU
 * on every Java thread; async-profiler {@code event=cpu} at 1 ms; JFR's {@code profile} settings.
 * Each repetition runs every configuration once, in an order rotated per repetition, so each
 * ratio to "no agent" pairs runs taken close together. Every run does the same fixed work:
 * rounds per thread, calibrated once per application and JDK from a short run without an agent
 * to last about {@code --app-warmup} and {@code --app-seconds} seconds.
 *
 * <p>The same runs give the accuracy tables: each run's leaf-method profile ({@link MethodProfile})
 * of the measured phase, compared by total variation distance within a profiler (its run-to-run
 * noise) and across profilers.
 */
final class AppsPart {
    enum Kind { NONE, STACKREQ, ASYNC_PROFILER, JFR, BOTH }

    static final class Config {
        final String id, label;
        final Kind kind;

        Config(String id, String label, Kind kind) {
            this.id = id;
            this.label = label;
            this.kind = kind;
        }
    }

    static final List<Config> CONFIGS = List.of(
            new Config("none", "no agent", Kind.NONE),
            new Config("stackreq", "stackreq + perf agent, task-clock 1 ms, every Java thread", Kind.STACKREQ),
            new Config("ap", "async-profiler 4.2 event=cpu, 1 ms", Kind.ASYNC_PROFILER),
            new Config("jfr", "JFR, settings=profile", Kind.JFR),
            new Config("both", "stackreq + perf agent and async-profiler in one JVM (accuracy only)", Kind.BOTH));

    /** The perf agent's signal when async-profiler, which takes SIGPROF, samples the same JVM. */
    private static final int SHARED_JVM_SIGNAL = 40;

    static final class Run {
        double throughput;   // rounds per second
        double cpuPerRound;  // process CPU seconds per round
        double samplesPerSecond = Double.NaN;
        int threads;
        MethodProfile profile;
        /** Kind.BOTH: async-profiler's profile of the same run. */
        MethodProfile sameRunAsyncProfiler;
    }

    private final Bench bench;

    AppsPart(Bench bench) { this.bench = bench; }

    List<String> jvmArgs(Config c, Path dir) throws Exception {
        List<String> args = new ArrayList<>(List.of("-Xms1g", "-Xmx1g"));
        switch (c.kind) {
            case NONE: break;
            case STACKREQ:
                args.add("-agentpath:" + bench.lib("libstackreq.so"));
                args.add("-agentpath:" + bench.lib("libstackreq-perf.so") + "=interval=1ms,out="
                        + dir.resolve("samples.jsonl"));
                args.add("-XX:StartFlightRecording=filename=" + dir.resolve("rec.jfr") + ",settings="
                        + bench.stackreqSettings());
                break;
            case ASYNC_PROFILER:
                args.add("-agentpath:" + bench.asyncProfiler + "=start,event=cpu,interval=1ms,file="
                        + dir.resolve("rec.jfr"));
                break;
            case JFR:
                args.add("-XX:StartFlightRecording=filename=" + dir.resolve("rec.jfr") + ",settings=profile");
                break;
            case BOTH:
                args.add("-agentpath:" + bench.lib("libstackreq.so"));
                args.add("-agentpath:" + bench.lib("libstackreq-perf.so") + "=interval=1ms,signal=" + SHARED_JVM_SIGNAL
                        + ",out=" + dir.resolve("samples.jsonl"));
                args.add("-agentpath:" + bench.asyncProfiler + "=start,event=cpu,interval=1ms,file="
                        + dir.resolve("ap.jfr"));
                args.add("-XX:StartFlightRecording=filename=" + dir.resolve("rec.jfr") + ",settings="
                        + bench.stackreqSettings());
                break;
        }
        return args;
    }

    /** {warm-up, measured} rounds per thread for about the configured seconds, from a short run without an agent. */
    int[] calibrate(Jvm jdk, String app) throws Exception {
        Path dir = bench.work.resolve("apps").resolve(jdk.feature + "-" + app + "-calibration");
        Jvm.Result result = jdk.run(dir, List.of("-Xms1g", "-Xmx1g"), bench.classpath, "io.stackreq.apps.AppMain",
                List.of(app, "1", "2"), 900, null);
        Map<String, String> f = result.fields("BENCH");
        double perThread = Double.parseDouble(f.get("roundsPerSecond")) / Integer.parseInt(f.get("threads"));
        return new int[] {Math.max(1, (int) Math.ceil(bench.appWarmupSeconds * perThread)),
                Math.max(1, (int) Math.ceil(bench.appSeconds * perThread))};
    }

    Run measure(Jvm jdk, Config c, String app, int[] rounds, int rep) throws Exception {
        Path dir = bench.work.resolve("apps").resolve(jdk.feature + "-" + app + "-" + c.id + "-" + rep);
        double expected = (rounds[0] + rounds[1]) / (double) rounds[1] * bench.appSeconds;
        Jvm.Result result = jdk.run(dir, jvmArgs(c, dir), bench.classpath, "io.stackreq.apps.AppMain",
                List.of(app, String.valueOf(rounds[0]), String.valueOf(rounds[1])), (int) (300 + 10 * expected), null);
        Map<String, String> f = result.fields("BENCH");
        Run run = new Run();
        double seconds = Double.parseDouble(f.get("seconds"));
        run.throughput = Double.parseDouble(f.get("roundsPerSecond"));
        run.threads = Integer.parseInt(f.get("threads"));
        run.cpuPerRound = Double.parseDouble(f.get("cpuSeconds")) / Long.parseLong(f.get("rounds"));
        long from = Long.parseLong(f.get("startEpochMillis")), to = Long.parseLong(f.get("endEpochMillis"));
        Path recording = dir.resolve("rec.jfr");
        switch (c.kind) {
            case BOTH:
                run.sameRunAsyncProfiler = MethodProfile.read(dir.resolve("ap.jfr"), "jdk.ExecutionSample", from, to);
                run.profile = MethodProfile.read(recording, "jdk.StackTraceRequest", from, to);
                break;
            case STACKREQ:
                run.profile = MethodProfile.read(recording, "jdk.StackTraceRequest", from, to);
                run.samplesPerSecond = Recordings.perfSamples(dir.resolve("samples.jsonl"),
                        Long.parseLong(f.get("startNanos")), Long.parseLong(f.get("endNanos")))[1] / seconds;
                break;
            case ASYNC_PROFILER:
            case JFR:
                run.profile = MethodProfile.read(recording, "jdk.ExecutionSample", from, to);
                run.samplesPerSecond = Recordings.count(recording, "jdk.ExecutionSample", from, to) / seconds;
                break;
            default:
                break;
        }
        return run;
    }

    void run() throws Exception {
        List<Config> configs = new ArrayList<>();
        for (Config c : CONFIGS) if (bench.appConfigs.isEmpty() || bench.appConfigs.contains(c.id)) configs.add(c);
        if (configs.isEmpty()) throw new IllegalArgumentException("--app-configs names none of " + CONFIGS.stream().map(c -> c.id).toList());
        for (Jvm jdk : bench.jdks) {
            Map<String, Map<String, List<Run>>> results = new LinkedHashMap<>();
            Map<String, int[]> rounds = new LinkedHashMap<>();
            for (String app : bench.apps) {
                Bench.progress("apps " + jdk.label() + " " + app + ": calibrating");
                rounds.put(app, calibrate(jdk, app));
                results.put(app, new LinkedHashMap<>());
                for (Config c : CONFIGS) results.get(app).put(c.id, new ArrayList<>());
            }
            int total = bench.reps * bench.apps.size() * configs.size(), done = 0;
            for (int rep = 0; rep < bench.reps; rep++) {
                for (String app : bench.apps) {
                    for (int k = 0; k < configs.size(); k++) {
                        Config c = configs.get((k + rep) % configs.size());
                        Bench.progress(String.format("apps %s %s %s rep %d (%d/%d)", jdk.label(), app, c.id, rep + 1,
                                ++done, total));
                        results.get(app).get(c.id).add(measure(jdk, c, app, rounds.get(app), rep));
                    }
                }
            }
            if (!results.get(bench.apps.get(0)).get("none").isEmpty()) printOverhead(jdk, results, rounds);
            printAccuracy(jdk, results);
        }
    }

    private void printOverhead(Jvm jdk, Map<String, Map<String, List<Run>>> results, Map<String, int[]> rounds) {
        bench.emit("## Real applications: overhead, " + jdk.label());
        bench.emit("");
        bench.emit(String.format(Locale.ROOT, "Throughput lost to each profiler, in points of the throughput without "
                + "one (100 × (1 − rounds/s ÷ rounds/s of the paired run without an agent)): median (min–max) of %d "
                + "repetitions, each configuration once per repetition in rotated order; every run does the same "
                + "rounds (calibrated for %.0f s of warm-up and %.0f s measured without an agent), -Xmx1g. "
                + "**Goal: stackreq within 1 point of async-profiler on every application** (the column "
                + "\"stackreq − async-profiler\", paired within each repetition).", bench.reps,
                bench.appWarmupSeconds, bench.appSeconds));
        bench.emit("");
        bench.emit("| application | threads | rounds/s, no agent | stackreq | async-profiler cpu | JFR profile "
                + "| stackreq − async-profiler | goal | CPU per round: stackreq / async-profiler / JFR "
                + "| samples/s: stackreq / async-profiler / JFR |");
        bench.emit("|---|---|---|---|---|---|---|---|---|---|");
        for (String app : bench.apps) {
            Map<String, List<Run>> byConfig = results.get(app);
            List<Double> none = new ArrayList<>();
            for (Run r : byConfig.get("none")) none.add(r.throughput);
            List<Double> gap = new ArrayList<>();
            List<Run> s = byConfig.get("stackreq"), a = byConfig.get("ap");
            for (int i = 0; i < Math.min(s.size(), a.size()); i++) {
                Run n = byConfig.get("none").get(i);
                gap.add(100 * (a.get(i).throughput - s.get(i).throughput) / n.throughput);
            }
            double medianGap = Stats.median(gap);
            String goal = Double.isNaN(medianGap) ? "–" : medianGap <= 1.0 ? "met" : "**not met**";
            bench.emit("| " + app + " | " + byConfig.get("none").get(0).threads + " | " + Stats.f1(Stats.median(none)) + " | "
                    + points(lost(byConfig, "stackreq")) + " | " + points(lost(byConfig, "ap")) + " | "
                    + points(lost(byConfig, "jfr")) + " | " + signedPoints(gap) + " | " + goal + " | "
                    + Stats.f3(Stats.median(cpuRatios(byConfig, "stackreq"))) + " / "
                    + Stats.f3(Stats.median(cpuRatios(byConfig, "ap"))) + " / "
                    + Stats.f3(Stats.median(cpuRatios(byConfig, "jfr"))) + " | "
                    + Stats.f0(medianOf(byConfig.get("stackreq"), r -> r.samplesPerSecond)) + " / "
                    + Stats.f0(medianOf(byConfig.get("ap"), r -> r.samplesPerSecond)) + " / "
                    + Stats.f0(medianOf(byConfig.get("jfr"), r -> r.samplesPerSecond)) + " |");
        }
        bench.emit("");
        StringBuilder work = new StringBuilder("Rounds per thread (warm-up + measured): ");
        for (String app : bench.apps) {
            work.append(app).append(' ').append(rounds.get(app)[0]).append(" + ").append(rounds.get(app)[1]).append("; ");
        }
        bench.emit(work.toString().replaceAll("; $", ".") + " CPU per round is the process's (every thread), "
                + "relative to the paired run without an agent.");
        bench.emit("");
    }

    private void printAccuracy(Jvm jdk, Map<String, Map<String, List<Run>>> results) {
        bench.emit("## Real applications: accuracy, " + jdk.label());
        bench.emit("");
        bench.emit("Leaf-method profiles (the topmost Java method of each sample, every thread, the measured "
                + "phase) compared by total variation distance (0 = the same shares, 1 = disjoint): median over "
                + "pairs of runs. \"noise\" pairs two runs of the same profiler; a distance across profilers within "
                + "the larger noise of the two is a difference the runs themselves make. \"same JVM\": stackreq "
                + "(perf agent on signal " + SHARED_JVM_SIGNAL + ") and async-profiler sampling one run together, "
                + "where the application does the same for both; \"sampling alone\" is the distance two profiles of "
                + "those sizes drawn from one distribution (the two pooled) have.");
        bench.emit("");
        bench.emit("| application | stackreq noise | async-profiler noise | stackreq vs async-profiler | same JVM "
                + "| JFR noise | JFR vs stackreq | JFR vs async-profiler "
                + "| samples a run: stackreq / async-profiler / JFR | stackreq without a stack |");
        bench.emit("|---|---|---|---|---|---|---|---|---|---|");
        for (String app : bench.apps) {
            List<MethodProfile> s = profiles(results.get(app).get("stackreq"));
            List<MethodProfile> a = profiles(results.get(app).get("ap"));
            List<MethodProfile> j = profiles(results.get(app).get("jfr"));
            List<Double> same = new ArrayList<>(), sameBySampling = new ArrayList<>(), sameSamples = new ArrayList<>();
            for (Run r : results.get(app).get("both")) {
                if (r.profile != null && r.sameRunAsyncProfiler != null) {
                    same.add(MethodProfile.distance(r.profile, r.sameRunAsyncProfiler));
                    sameBySampling.add(MethodProfile.samplingDistance(r.profile, r.sameRunAsyncProfiler, 20));
                    sameSamples.add((double) Math.min(r.profile.total, r.sameRunAsyncProfiler.total));
                }
            }
            double noiseS = within(s), noiseA = within(a), cross = across(s, a);
            String verdict = Double.isNaN(cross) ? "" : cross <= Math.max(noiseS, noiseA) ? " (within noise)"
                    : " (**beyond noise**)";
            MethodProfile all = MethodProfile.merged(s);
            double failed = all.total + all.withoutJavaFrame == 0 ? Double.NaN
                    : 100.0 * all.withoutJavaFrame / (all.total + all.withoutJavaFrame);
            bench.emit("| " + app + " | " + Stats.f3(noiseS) + " | " + Stats.f3(noiseA) + " | " + Stats.f3(cross)
                    + verdict + " | " + Stats.f3(Stats.median(same)) + " (sampling alone: "
                    + Stats.f3(Stats.median(sameBySampling)) + "; " + Stats.f0(Stats.median(sameSamples)) + " samples) | "
                    + Stats.f3(within(j)) + " | "
                    + Stats.f3(across(j, s)) + " | " + Stats.f3(across(j, a)) + " | "
                    + Stats.f0(medianOf(s, p -> (double) p.total)) + " / " + Stats.f0(medianOf(a, p -> (double) p.total))
                    + " / " + Stats.f0(medianOf(j, p -> (double) p.total)) + " | "
                    + String.format(Locale.ROOT, "%.2f%%", failed) + " |");
        }
        bench.emit("");
        bench.emit("Where stackreq and async-profiler differ most sampling the same JVM (every same-JVM run summed; "
                + "z = the difference over its binomial standard error: beyond 4, a difference in the stacks), "
                + "then where JFR's sampler (its own runs) differs most from stackreq (its own runs); with the "
                + "type of the leaf frame in stackreq's samples:");
        bench.emit("");
        bench.emit("| application | method | stackreq | async-profiler | z | JFR | leaf frame (stackreq) |");
        bench.emit("|---|---|---|---|---|---|---|");
        for (String app : bench.apps) {
            List<MethodProfile> ss = new ArrayList<>(), sa = new ArrayList<>();
            for (Run r : results.get(app).get("both")) {
                if (r.profile != null && r.sameRunAsyncProfiler != null) {
                    ss.add(r.profile);
                    sa.add(r.sameRunAsyncProfiler);
                }
            }
            MethodProfile s = MethodProfile.merged(ss), a = MethodProfile.merged(sa);
            MethodProfile j = MethodProfile.merged(profiles(results.get(app).get("jfr")));
            for (String m : largestDifferences(s, a, 6)) {
                bench.emit(String.format(Locale.ROOT, "| %s | `%s` | %.1f%% | %.1f%% | %+.1f | | %s |", app, m,
                        100 * s.share(m), 100 * a.share(m), z(s, a, m), s.leafType(m)));
            }
            MethodProfile own = MethodProfile.merged(profiles(results.get(app).get("stackreq")));
            for (String m : largestDifferences(j, own, 5)) {
                bench.emit(String.format(Locale.ROOT, "| %s | `%s` | %.1f%% | | | %.1f%% (%+.1f) | %s |", app, m,
                        100 * own.share(m), 100 * j.share(m), 100 * (j.share(m) - own.share(m)), own.leafType(m)));
            }
        }
        bench.emit("");
    }

    /** A method's share difference between two profiles over its binomial standard error. */
    private static double z(MethodProfile x, MethodProfile y, String method) {
        double p = x.share(method), q = y.share(method);
        double error = Math.sqrt(p * (1 - p) / Math.max(1, x.total) + q * (1 - q) / Math.max(1, y.total));
        return error == 0 ? 0 : (p - q) / error;
    }

    private static List<String> largestDifferences(MethodProfile x, MethodProfile y, int n) {
        Set<String> methods = new HashSet<>(x.counts.keySet());
        methods.addAll(y.counts.keySet());
        List<String> sorted = new ArrayList<>(methods);
        sorted.sort(Comparator.comparingDouble((String m) -> -Math.abs(x.share(m) - y.share(m))).thenComparing(m -> m));
        return sorted.subList(0, Math.min(n, sorted.size()));
    }

    private static List<MethodProfile> profiles(List<Run> runs) {
        List<MethodProfile> profiles = new ArrayList<>();
        for (Run r : runs) if (r.profile != null && r.profile.total > 0) profiles.add(r.profile);
        return profiles;
    }

    /** Median distance over the pairs of different runs of one list. */
    private static double within(List<MethodProfile> runs) {
        List<Double> d = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            for (int k = i + 1; k < runs.size(); k++) d.add(MethodProfile.distance(runs.get(i), runs.get(k)));
        }
        return Stats.median(d);
    }

    /** Median distance over every pair of a run of one list and a run of the other. */
    private static double across(List<MethodProfile> x, List<MethodProfile> y) {
        List<Double> d = new ArrayList<>();
        for (MethodProfile a : x) for (MethodProfile b : y) d.add(MethodProfile.distance(a, b));
        return Stats.median(d);
    }

    /** Points of throughput lost, per repetition, against the paired run without an agent. */
    private static List<Double> lost(Map<String, List<Run>> byConfig, String config) {
        List<Double> points = new ArrayList<>();
        List<Run> x = byConfig.get(config), none = byConfig.get("none");
        for (int i = 0; i < Math.min(x.size(), none.size()); i++) {
            points.add(100 * (1 - x.get(i).throughput / none.get(i).throughput));
        }
        return points;
    }

    private static List<Double> cpuRatios(Map<String, List<Run>> byConfig, String config) {
        List<Double> ratios = new ArrayList<>();
        List<Run> x = byConfig.get(config), none = byConfig.get("none");
        for (int i = 0; i < Math.min(x.size(), none.size()); i++) ratios.add(x.get(i).cpuPerRound / none.get(i).cpuPerRound);
        return ratios;
    }

    private static <T> double medianOf(List<T> items, java.util.function.ToDoubleFunction<T> value) {
        List<Double> values = new ArrayList<>();
        for (T item : items) values.add(value.applyAsDouble(item));
        return Stats.median(values);
    }

    private static String points(List<Double> values) {
        if (values.isEmpty()) return "–";
        return String.format(Locale.ROOT, "%.1f (%.1f … %.1f)", Stats.median(values), Stats.min(values),
                Stats.max(values));
    }

    private static String signedPoints(List<Double> values) {
        if (values.isEmpty()) return "–";
        return String.format(Locale.ROOT, "%+.1f (%+.1f … %+.1f)", Stats.median(values), Stats.min(values),
                Stats.max(values));
    }
}
