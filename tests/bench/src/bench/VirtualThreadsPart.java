package bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What stackreq adds to every virtual-thread mount and unmount (it follows them with JVMTI's
 * VirtualThreadMount/Unmount events to attribute requests to the virtual thread): yields per
 * second of {@link YieldingThreads} with no agent, with libstackreq loaded, and with libstackreq,
 * a recording of jdk.StackTraceRequest and the perf agent at 1 ms, alternated, on each JDK with
 * virtual threads.
 */
final class VirtualThreadsPart {
    private static final int THREADS = 4;
    private static final String[] CONFIGS = {"no agent", "libstackreq", "libstackreq + recording + perf 1 ms"};
    private final Bench bench;

    VirtualThreadsPart(Bench bench) { this.bench = bench; }

    private List<String> flags(int config, Path dir) throws Exception {
        List<String> flags = new ArrayList<>(List.of("-Xms128m", "-Xmx128m",
                "-Djdk.virtualThreadScheduler.parallelism=2"));
        if (config >= 1) flags.add("-agentpath:" + bench.lib("libstackreq.so"));
        if (config == 2) {
            flags.add("-agentpath:" + bench.lib("libstackreq-perf.so") + "=interval=1ms,out="
                    + dir.resolve("samples.jsonl"));
            flags.add("-XX:StartFlightRecording=filename=" + dir.resolve("rec.jfr") + ",settings="
                    + bench.stackreqSettings());
        }
        return flags;
    }

    /** Nanoseconds per yield (wall time × threads ÷ yields) of one run. */
    private double measure(Jvm jdk, int config, int rep) throws Exception {
        Path dir = bench.work.resolve("vthreads").resolve(jdk.feature + "-config" + config + "-" + rep);
        double seconds = bench.quick ? 3 : 8;
        Jvm.Result result = jdk.run(dir, flags(config, dir), bench.classpath, "bench.YieldingThreads",
                List.of(String.valueOf(THREADS), String.valueOf(seconds)), 120, null);
        Map<String, String> fields = result.fields("YIELDS");
        return Double.parseDouble(fields.get("nanos")) * THREADS / Double.parseDouble(fields.get("yields"));
    }

    void run() throws Exception {
        for (Jvm jdk : bench.jdks) {
            if (jdk.feature < 21) {
                bench.emit("_Virtual-thread mounts: " + jdk.label() + " has no virtual threads._");
                bench.emit("");
                continue;
            }
            List<List<Double>> perYield = new ArrayList<>();
            for (int ignored = 0; ignored < CONFIGS.length; ignored++) perYield.add(new ArrayList<>());
            for (int rep = 0; rep < bench.reps; rep++) {
                for (int c = 0; c < CONFIGS.length; c++) {
                    Bench.progress("virtual threads " + jdk.label() + " " + CONFIGS[c] + " rep " + (rep + 1));
                    perYield.get(c).add(measure(jdk, c, rep));
                }
            }
            bench.emit("## Virtual-thread mount and unmount, " + jdk.label());
            bench.emit("");
            bench.emit(THREADS + " virtual threads calling Thread.yield() in a loop on 2 carriers (each yield is "
                    + "an unmount and a mount); time per yield = wall time × threads ÷ yields, median of "
                    + bench.reps + " alternated runs; ratio = per-run ratio to the no-agent run of the same "
                    + "repetition, median (min–max).");
            bench.emit("");
            bench.emit("| configuration | time per yield | ratio to no agent |");
            bench.emit("|---|---|---|");
            for (int c = 0; c < CONFIGS.length; c++) {
                List<Double> ratios = new ArrayList<>();
                for (int rep = 0; rep < bench.reps; rep++) {
                    ratios.add(perYield.get(c).get(rep) / perYield.get(0).get(rep));
                }
                bench.emit("| " + CONFIGS[c] + " | " + Stats.nanos(Stats.median(perYield.get(c))) + " | "
                        + Stats.ratio(ratios) + " |");
            }
            bench.emit("");
        }
    }
}
