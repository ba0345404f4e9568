package bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Deliverable 1: throughput of H2, Lucene and Jackson under each profiler relative to no agent.
 * Every repetition runs every configuration once (in an order rotated per repetition), so the
 * ratio of a configuration to "none" pairs two runs taken close together.
 */
final class OverheadPart {
    private static final String[] WORKLOADS = {"h2", "lucene", "jackson"};

    /** What a configuration's samples are counted from. */
    enum Samples { NONE, STACKREQ, PERF_DRY_RUN, EXECUTION_SAMPLE, CPU_TIME_SAMPLE }

    record Config(String id, String label, int minFeature, Samples samples, String kind, String interval) {}

    private final Bench bench;

    OverheadPart(Bench bench) { this.bench = bench; }

    static List<Config> configs(Jvm jdk) {
        List<Config> all = new ArrayList<>();
        all.add(new Config("none", "no agent", 0, Samples.NONE, "none", null));
        for (String interval : new String[] {"1ms", "100us"}) {
            String label = interval.equals("1ms") ? "1 ms" : "100 µs";
            all.add(new Config("stackreq-" + interval, "stackreq + perf agent, task-clock " + label, 0,
                    Samples.STACKREQ, "stackreq", interval));
            all.add(new Config("dry-" + interval, "perf agent dry-run (signals, no request), " + label, 0,
                    Samples.PERF_DRY_RUN, "dry", interval));
            all.add(new Config("ap-cpu-" + interval, "async-profiler 4.2 event=cpu, " + label, 0,
                    Samples.EXECUTION_SAMPLE, "ap-cpu", interval));
            all.add(new Config("ap-itimer-" + interval, "async-profiler 4.2 event=itimer, " + label, 0,
                    Samples.EXECUTION_SAMPLE, "ap-itimer", interval));
        }
        all.add(new Config("jfr-exec", "JFR jdk.ExecutionSample, period 1 ms (smallest)", 0, Samples.EXECUTION_SAMPLE,
                "jfr-exec", "1ms"));
        all.add(new Config("jfr-cpu", "JFR jdk.CPUTimeSample, throttle 1 ms", 25,
                Samples.CPU_TIME_SAMPLE, "jfr-cpu", "1ms"));
        all.removeIf(c -> c.minFeature > jdk.feature);
        return all;
    }

    List<String> jvmArgs(Config c, Path dir) throws Exception {
        List<String> args = new ArrayList<>(List.of("-Xms512m", "-Xmx512m"));
        String stackreq = "-agentpath:" + bench.lib("libstackreq.so");
        String perf = "-agentpath:" + bench.lib("libstackreq-perf.so") + "=interval=" + c.interval + ",out="
                + dir.resolve("samples.jsonl");
        String recording = "-XX:StartFlightRecording=filename=" + dir.resolve("rec.jfr") + ",settings=";
        switch (c.kind) {
            case "none": break;
            case "stackreq":
                args.addAll(List.of(stackreq, perf, recording + bench.stackreqSettings()));
                break;
            case "dry":
                args.addAll(List.of(stackreq, perf + ",dry-run", recording + bench.stackreqSettings()));
                break;
            case "ap-cpu":
            case "ap-itimer":
                args.add("-agentpath:" + bench.asyncProfiler + "=start,event=" + c.kind.substring(3) + ",interval="
                        + c.interval + ",file=" + dir.resolve("rec.jfr"));
                break;
            case "jfr-exec":
                args.add(recording + bench.settings("execution-sample",
                        "  <event name=\"jdk.ExecutionSample\"><setting name=\"enabled\">true</setting>"
                                + "<setting name=\"period\">1 ms</setting></event>\n"));
                break;
            case "jfr-cpu":
                args.add(recording + bench.settings("cpu-time-sample",
                        "  <event name=\"jdk.CPUTimeSample\"><setting name=\"enabled\">true</setting>"
                                + "<setting name=\"throttle\">1ms</setting></event>\n"));
                break;
            default: throw new IllegalArgumentException(c.kind);
        }
        return args;
    }

    /**
     * Rounds per thread: {warm-up, measured}; about 1.5 s + 3 s of work without an agent (0.7 s + 1 s
     * with --quick). h2 runs on 4 threads, the others on one (io.stackreq.apps).
     */
    int[] rounds(String workload) {
        int[] full = switch (workload) {
            case "h2" -> new int[] {40, 80};
            case "lucene" -> new int[] {12, 25};
            default -> new int[] {80, 170};
        };
        return bench.quick ? new int[] {Math.max(2, full[0] / 2), Math.max(3, full[1] / 3)} : full;
    }

    static final class Measured {
        double throughput;      // rounds per second
        double cpuPerRound;     // process CPU seconds per round
        double samplesPerSecond;
    }

    Measured measure(Jvm jdk, Config c, String workload, int rep) throws Exception {
        Path dir = bench.work.resolve("overhead").resolve(jdk.feature + "-" + workload + "-" + c.id + "-" + rep);
        int[] r = rounds(workload);
        Jvm.Result result = jdk.run(dir, jvmArgs(c, dir), bench.classpath, "io.stackreq.apps.AppMain",
                List.of(workload, String.valueOf(r[0]), String.valueOf(r[1])), 600, null);
        Map<String, String> f = result.fields("BENCH");
        Measured m = new Measured();
        double seconds = Double.parseDouble(f.get("seconds"));
        m.throughput = Double.parseDouble(f.get("roundsPerSecond"));
        m.cpuPerRound = Double.parseDouble(f.get("cpuSeconds")) / r[1];
        long from = Long.parseLong(f.get("startEpochMillis")), to = Long.parseLong(f.get("endEpochMillis"));
        long fromNanos = Long.parseLong(f.get("startNanos")), toNanos = Long.parseLong(f.get("endNanos"));
        long samples = switch (c.samples) {
            case NONE -> 0;
            case STACKREQ -> Recordings.perfSamples(dir.resolve("samples.jsonl"), fromNanos, toNanos)[1];
            case PERF_DRY_RUN -> Recordings.perfSamples(dir.resolve("samples.jsonl"), fromNanos, toNanos)[0];
            case EXECUTION_SAMPLE -> Recordings.count(dir.resolve("rec.jfr"), "jdk.ExecutionSample", from, to);
            case CPU_TIME_SAMPLE -> Recordings.count(dir.resolve("rec.jfr"), "jdk.CPUTimeSample", from, to);
        };
        m.samplesPerSecond = c.samples == Samples.NONE ? Double.NaN : samples / seconds;
        return m;
    }

    void run() throws Exception {
        for (Jvm jdk : bench.jdks) {
            List<Config> configs = configs(jdk);
            // results[workload][config] = one Measured per repetition
            Map<String, Map<String, List<Measured>>> results = new LinkedHashMap<>();
            for (String w : WORKLOADS) {
                results.put(w, new LinkedHashMap<>());
                for (Config c : configs) results.get(w).put(c.id, new ArrayList<>());
            }
            int total = bench.reps * WORKLOADS.length * configs.size(), done = 0;
            for (int rep = 0; rep < bench.reps; rep++) {
                for (String w : WORKLOADS) {
                    for (int k = 0; k < configs.size(); k++) {
                        Config c = configs.get((k + rep) % configs.size());
                        Bench.progress(String.format("overhead %s %s %s rep %d (%d/%d)", jdk.label(), w, c.id,
                                rep + 1, ++done, total));
                        results.get(w).get(c.id).add(measure(jdk, c, w, rep));
                    }
                }
            }
            print(jdk, configs, results);
        }
    }

    private void print(Jvm jdk, List<Config> configs, Map<String, Map<String, List<Measured>>> results) {
        bench.emit("## Overhead on real workloads, " + jdk.label());
        bench.emit("");
        bench.emit("Throughput (rounds/s of the measured phase) relative to no agent: median (min–max) of "
                + bench.reps + " paired runs; 1.000 = no cost. io.stackreq.apps: h2 on 4 threads, lucene and jackson on one, -Xmx512m; every JFR "
                + "configuration records only its own event.");
        bench.emit("");
        StringBuilder header = new StringBuilder("| configuration |");
        StringBuilder rule = new StringBuilder("|---|");
        for (String w : WORKLOADS) {
            header.append(' ').append(w).append(" |");
            rule.append("---|");
        }
        header.append(" samples/s (h2 / lucene / jackson) |");
        rule.append("---|");
        bench.emit(header.toString());
        bench.emit(rule.toString());
        Map<String, Double> baseline = new HashMap<>();
        for (String w : WORKLOADS) {
            List<Double> t = new ArrayList<>();
            for (Measured m : results.get(w).get("none")) t.add(m.throughput);
            baseline.put(w, Stats.median(t));
        }
        for (Config c : configs) {
            if (c.id.equals("none")) continue;
            StringBuilder row = new StringBuilder("| " + c.label + " |");
            List<String> rates = new ArrayList<>();
            for (String w : WORKLOADS) {
                row.append(' ').append(Stats.ratio(paired(results.get(w), c.id, "none", false))).append(" |");
                List<Double> s = new ArrayList<>();
                for (Measured m : results.get(w).get(c.id)) s.add(m.samplesPerSecond);
                rates.add(Stats.f0(Stats.median(s)));
            }
            row.append(' ').append(String.join(" / ", rates)).append(" |");
            bench.emit(row.toString());
        }
        StringBuilder base = new StringBuilder("| _no agent, rounds/s_ |");
        for (String w : WORKLOADS) base.append(' ').append(Stats.f1(baseline.get(w))).append(" |");
        bench.emit(base.append(" |").toString());
        bench.emit("");
        bench.emit("stackreq's own part: stackreq + perf agent relative to the dry-run at the same interval (same "
                + "signals, same recording; the difference is RequestStackTrace and its events); and CPU cost: process "
                + "CPU seconds per round relative to no agent (all threads; > 1 = more CPU).");
        bench.emit("");
        String[] columns = java.util.Arrays.stream(WORKLOADS).map(w -> " " + w).toArray(String[]::new);
        bench.emit("| ratio |" + String.join(" |", columns) + " |");
        bench.emit("|---|---|---|---|");
        for (String interval : new String[] {"1ms", "100us"}) {
            StringBuilder row = new StringBuilder("| throughput stackreq / dry-run, "
                    + interval.replace("us", " µs").replace("ms", " ms") + " |");
            for (String w : WORKLOADS) {
                List<Double> ratios = paired(results.get(w), "stackreq-" + interval, "dry-" + interval, false);
                row.append(' ').append(Stats.ratio(ratios)).append(" |");
            }
            bench.emit(row.toString());
        }
        for (Config c : configs) {
            if (c.id.equals("none")) continue;
            StringBuilder row = new StringBuilder("| CPU per round, " + c.label + " |");
            for (String w : WORKLOADS) {
                row.append(' ').append(Stats.ratio(paired(results.get(w), c.id, "none", true))).append(" |");
            }
            bench.emit(row.toString());
        }
        bench.emit("");
    }

    /** Ratios a/b pairing repetition i of a with repetition i of b (throughput, or CPU per round). */
    static List<Double> paired(Map<String, List<Measured>> byConfig, String a, String b, boolean cpu) {
        List<Measured> x = byConfig.get(a), y = byConfig.get(b);
        List<Double> ratios = new ArrayList<>();
        if (x == null || y == null) return ratios;
        for (int i = 0; i < Math.min(x.size(), y.size()); i++) {
            ratios.add(cpu ? x.get(i).cpuPerRound / y.get(i).cpuPerRound : x.get(i).throughput / y.get(i).throughput);
        }
        return ratios;
    }
}
