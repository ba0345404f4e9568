package io.stackreq.validation.oracle;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.validation.Jfc;
import io.stackreq.validation.bias.Profiler;
import io.stackreq.validation.oracle.OracleCheck.Layer;
import io.stackreq.validation.oracle.OracleCheck.Tally;

/**
 * Runs the oracle on one JDK: one JVM with layers (a) and (c) (JVMTI checks at sampled method
 * entries, perf task-clock signals at 1 ms of each thread's CPU time), then one with layer (b)
 * (biased requests from JNI at sampled method entries), each running every workload for the
 * given wall time; then checks every sample.
 */
public final class OracleRun {
    /** Everything checked on one JDK, and the target JVMs' own summary lines. */
    public record Result(Jdk jdk, List<String> workloads, Map<Layer, Map<String, Tally>> tallies,
            List<String> summaries) {
        public Tally tally(Layer layer, String workload) {
            return tallies.getOrDefault(layer, Map.of()).getOrDefault(workload, new Tally());
        }
    }

    private static final Pattern SUMMARY =
            Pattern.compile("oracle-summary woven=(\\d+) weave-failures=(\\d+) corrupt=(\\d+)");

    private OracleRun() {
    }

    public static Result run(Jdk jdk, Path dir, List<String> workloads, double seconds) {
        Path agentJar = OracleAgentJar.build(dir.resolve("oracle-agent.jar"));
        Path acDir = dir.resolve("oracle-" + jdk.feature() + "-ac").toAbsolutePath();
        Path bDir = dir.resolve("oracle-" + jdk.feature() + "-b").toAbsolutePath();
        String acSummary = runOne(jdk, acDir, "ac", agentJar, workloads, seconds);
        String bSummary = runOne(jdk, bDir, "b", agentJar, workloads, Math.max(0.5, seconds / 2));
        OracleCheck ac = new OracleCheck(acDir.resolve("methods.txt"),
                CompiledCode.read(acDir.resolve("compiled-code.txt")));
        ac.checkJvmti(acDir.resolve("jvmti-checks.txt"));
        ac.checkRequests(acDir.resolve("snapshots.txt"), acDir.resolve("recording.jfr"));
        OracleCheck b = new OracleCheck(bDir.resolve("methods.txt"), CompiledCode.none());
        b.checkRequests(bDir.resolve("snapshots.txt"), bDir.resolve("recording.jfr"));
        Map<Layer, Map<String, Tally>> tallies = new java.util.LinkedHashMap<>();
        tallies.put(Layer.JVMTI, ac.tallies().getOrDefault(Layer.JVMTI, Map.of()));
        tallies.put(Layer.BIASED, b.tallies().getOrDefault(Layer.BIASED, Map.of()));
        tallies.put(Layer.SIGNAL, ac.tallies().getOrDefault(Layer.SIGNAL, Map.of()));
        return new Result(jdk, List.copyOf(workloads), tallies, List.of("ac: " + acSummary, "b: " + bSummary));
    }

    private static String runOne(Jdk jdk, Path dir, String layers, Path agentJar, List<String> workloads,
            double seconds) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Path oracle = JvmRun.requesterLibrary().resolveSibling("liboracle.so").toAbsolutePath();
        JvmRun run = JvmRun.on(jdk, dir).name("oracle").withoutRequester()
                .stackreqOptions("depth=1024,ring=1024")
                .flags("-agentpath:" + oracle + "=out=" + dir + ",layers=" + layers,
                        "-javaagent:" + agentJar + "=" + dir.resolve("methods.txt"),
                        "-Dstackreq.oracle.layers=" + layers,
                        "-XX:StartFlightRecording=filename=" + dir.resolve("recording.jfr") + ",settings="
                                + Jfc.write(dir, "none", "") + ",+jdk.StackTraceRequest#enabled=true")
                .flags(Profiler.COMMON_FLAGS.toArray(new String[0]))
                .main(OracleMain.class, Double.toString(seconds), String.join(",", workloads))
                .timeout(Duration.ofSeconds(60 + (long) (workloads.size() * seconds * 6)));
        JvmRun.Result result = run.run();
        Matcher m = SUMMARY.matcher(result.stdout());
        if (!m.find()) {
            throw new AssertionError("no oracle summary line\n" + result);
        }
        if (!m.group(2).equals("0") || !m.group(3).equals("0")) {
            throw new AssertionError("the oracle's weaving is broken (" + m.group() + ")\n" + result);
        }
        return m.group();
    }
}
