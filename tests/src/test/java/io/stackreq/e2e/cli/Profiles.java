package io.stackreq.e2e.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;

/**
 * {@code stackreq profile} runs of the bundled workloads, one per JDK and workload, shared by the
 * test classes (2 cores: every profiled JVM runs once). Each lives in
 * {@code tests/target/e2e-cli/<jdk>/<name>/}, where it stays for a look after the tests.
 */
final class Profiles {
    static final String TWO_PHASE = "io.stackreq.demo.TwoPhase";
    static final String METHOD_A = "io.stackreq.demo.TwoPhase.methodA";
    static final String METHOD_B = "io.stackreq.demo.TwoPhase.methodB";
    static final String PAGE_TOUCHER = "io.stackreq.demo.PageToucher";
    static final String TOUCH = "io.stackreq.demo.PageToucher.touchFreshMemory";
    static final String COMPUTE = "io.stackreq.demo.PageToucher.computeOnly";
    static final String BIAS_TRAP = "io.stackreq.demo.BiasTrap";
    static final String COPY_ARRAYS = "io.stackreq.demo.BiasTrap.copyArrays";
    static final String ALLOCATION_CHURN = "io.stackreq.demo.AllocationChurn";

    static final List<String> OUTPUT_FILES =
            List.of("recording.jfr", "samples.jsonl", "report.txt", "flame.html", "profile.jfr",
                    "recording-unbiased.jfr");

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, Profiled> RUNS = new HashMap<>();
    private static final Map<String, JsonNode> REPORTS = new HashMap<>();

    private Profiles() {
    }

    /** One finished {@code profile} run: its directory (work dir of the CLI) and what the CLI printed. */
    record Profiled(Jdk jdk, Path workDir, Path out, JvmRun.Result result) {
        Path file(String name) {
            return out.resolve(name);
        }

        /**
         * {@code stackreq report out/recording.jfr --samples out/samples.jsonl --format json [extra]};
         * each distinct report is run once (the CLI parses the whole recording every time).
         */
        JsonNode report(String... extra) {
            String key = out + " " + String.join(" ", extra);
            synchronized (REPORTS) {
                JsonNode known = REPORTS.get(key);
                if (known == null) {
                    known = runReport(extra);
                    REPORTS.put(key, known);
                }
                return known.deepCopy();
            }
        }

        private JsonNode runReport(String... extra) {
            List<String> args = new ArrayList<>(List.of("report", file("recording.jfr").toString(), "--samples",
                    file("samples.jsonl").toString(), "--format", "json"));
            args.addAll(List.of(extra));
            JvmRun.Result report = JvmRun.cli(Jdk.current(), workDir, args)
                    .name("report" + String.join("", extra).replace('-', '_')).timeout(Duration.ofSeconds(120)).start();
            assertEquals(0, report.exitCode(), () -> "report failed\n" + report);
            try {
                return JSON.readTree(report.stdout());
            } catch (IOException e) {
                throw new AssertionError("report --format json printed no JSON\n" + report, e);
            }
        }

        @Override
        public String toString() {
            return jdk + " profile in " + out + "\n" + result;
        }
    }

    /**
     * {@code profile -e task-clock -i 1ms} of TwoPhase for about 8 s of CPU: 6 s in methodA, 2 s in
     * methodB. Long enough that the JVM's start (class loading, JFR's start: CPU time outside both
     * methods, some of it in frames no walk can take) stays a small share on a loaded machine.
     */
    static synchronized Profiled twoPhase(Jdk jdk) {
        return profile(jdk, "two-phase", List.of("-e", "task-clock", "-i", "1ms"), TWO_PHASE, "8");
    }

    /**
     * {@code profile -e task-clock+page-faults -i 1ms --format pprof --format otlp} of PageToucher
     * for 2 s.
     */
    static synchronized Profiled pageFaults(Jdk jdk) {
        return profile(jdk, "page-faults", List.of("-e", "task-clock+page-faults", "-i", "1ms", "--format", "pprof",
                "--format", "otlp"), PAGE_TOUCHER, "2");
    }

    /** {@code profile --native -e task-clock -i 1ms} of BiasTrap (60% of its CPU in System.arraycopy) for 3 s. */
    static synchronized Profiled biasTrapWithNativeFrames(Jdk jdk) {
        return profile(jdk, "bias-trap-native", List.of("--native", "-e", "task-clock", "-i", "1ms"), BIAS_TRAP, "3");
    }

    /**
     * {@code profile --all-threads [--native] -e task-clock -i 1ms} of AllocationChurn for 3 s with
     * {@code -Xmx64m -XX:+UseG1GC}: the GC worker threads are busy.
     */
    static synchronized Profiled allocationChurnAllThreads(Jdk jdk, boolean nativeFrames) {
        List<String> options = new ArrayList<>(List.of("--all-threads", "-e", "task-clock", "-i", "1ms"));
        if (nativeFrames) {
            options.add("--native");
        }
        return profile(jdk, "allocation-churn-all-threads" + (nativeFrames ? "-native" : ""), options,
                List.of("-Xmx64m", "-XX:+UseG1GC"), ALLOCATION_CHURN, "3");
    }

    private static Profiled profile(Jdk jdk, String name, List<String> options, String mainClass, String seconds) {
        return profile(jdk, name, options, List.of(), mainClass, seconds);
    }

    private static Profiled profile(Jdk jdk, String name, List<String> options, List<String> jvmOptions,
            String mainClass, String seconds) {
        String key = jdk.home() + "/" + name;
        Profiled cached = RUNS.get(key);
        if (cached != null) {
            return succeeded(cached);
        }
        Path workDir = JvmRun.targetDir().resolve("e2e-cli").resolve("jdk" + jdk.feature()).resolve(name);
        Path out = workDir.resolve("out");
        deleteTree(workDir);
        List<String> args = new ArrayList<>(List.of("profile"));
        args.addAll(options);
        args.addAll(List.of("-o", out.toString(), "--java", jdk.java().toString(), "--"));
        args.addAll(jvmOptions);
        args.addAll(List.of("-cp", JvmRun.cliJar().toString(), mainClass, seconds));
        JvmRun.Result result = JvmRun.cli(Jdk.current(), workDir, args).name("profile")
                .timeout(Duration.ofSeconds(120)).start();
        Profiled run = new Profiled(jdk, workDir, out, result);
        // Kept even when it failed: the next test that needs it fails at once instead of rerunning it.
        RUNS.put(key, run);
        return succeeded(run);
    }

    private static Profiled succeeded(Profiled run) {
        if (run.result().exitCode() != 0) {
            fail("stackreq profile failed\n" + run);
        }
        return run;
    }

    static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path path : paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
                Files.delete(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The report entry named {@code method}, or fails listing what the report has. */
    static JsonNode entry(JsonNode report, String method) {
        for (JsonNode entry : report.path("entries")) {
            if (method.equals(entry.path("name").asText())) {
                return entry;
            }
        }
        throw new AssertionError(method + " is not in the report: " + entryNames(report));
    }

    static List<String> entryNames(JsonNode report) {
        List<String> names = new ArrayList<>();
        for (JsonNode entry : report.path("entries")) {
            names.add(entry.path("name").asText() + " self " + entry.path("selfPct").asDouble() + "% total "
                    + entry.path("totalPct").asDouble() + "%");
        }
        return names;
    }
}
