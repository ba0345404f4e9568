package io.stackreq.validation.oracle;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.stackreq.apps.App;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.validation.Jfc;
import io.stackreq.validation.bias.Profiler;
import io.stackreq.validation.oracle.OracleCheck.Layer;
import io.stackreq.validation.oracle.OracleCheck.Tally;
import io.stackreq.validation.oracle.workload.Returns;

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

    /**
     * How the oracle's JVMs start. {@link #NATIVE}: the JDK's java itself, layer (c) from perf
     * task-clock signals. A JDK of another architecture runs under an emulator (wrapper: {@code
     * qemu-aarch64-static -L ROOT}), where perf_event_open is ENOSYS: layer (c) then comes from
     * CPU-time timers (liboracle.so's signals=cpu-timer), and the timeouts are slowdown times
     * longer.
     */
    public record Launch(List<String> wrapper, String signals, int slowdown) {
        public static final Launch NATIVE = new Launch(List.of(), "perf", 1);

        public Launch {
            wrapper = List.copyOf(wrapper);
            if (!signals.equals("perf") && !signals.equals("cpu-timer")) {
                throw new IllegalArgumentException("signals: perf or cpu-timer, not " + signals);
            }
        }
    }

    private static final Pattern SUMMARY =
            Pattern.compile("oracle-summary woven=(\\d+) weave-failures=(\\d+) corrupt=(\\d+)");

    private OracleRun() {
    }

    public static Result run(Jdk jdk, Path dir, List<String> workloads, double seconds) {
        return run(jdk, dir, workloads, seconds, Launch.NATIVE);
    }

    public static Result run(Jdk jdk, Path dir, List<String> workloads, double seconds, Launch launch) {
        Path agentJar = OracleAgentJar.build(dir.resolve("oracle-agent.jar"));
        Path acDir = dir.resolve("oracle-" + jdk.feature() + "-ac").toAbsolutePath();
        Path bDir = dir.resolve("oracle-" + jdk.feature() + "-b").toAbsolutePath();
        String acSummary = runOne(jdk, acDir, "ac", agentJar, workloads, seconds, launch);
        String bSummary = runOne(jdk, bDir, "b", agentJar, workloads, Math.max(0.5, seconds / 2), launch);
        OracleCheck ac = new OracleCheck(acDir.resolve("methods.txt"),
                CompiledCode.read(acDir.resolve("compiled-code.txt")));
        ac.checkJvmti(acDir.resolve("jvmti-checks.txt"));
        if (ownWalker()) {
            ac.attributeWalks(agentLog(acDir));
        }
        ac.checkRequests(acDir.resolve("snapshots.txt"), acDir.resolve("recording.jfr"));
        OracleCheck b = new OracleCheck(bDir.resolve("methods.txt"),
                CompiledCode.read(bDir.resolve("compiled-code.txt")));
        b.checkRequests(bDir.resolve("snapshots.txt"), bDir.resolve("recording.jfr"));
        Map<Layer, Map<String, Tally>> tallies = new java.util.LinkedHashMap<>();
        tallies.put(Layer.JVMTI, ac.tallies().getOrDefault(Layer.JVMTI, Map.of()));
        tallies.put(Layer.BIASED, b.tallies().getOrDefault(Layer.BIASED, Map.of()));
        tallies.put(Layer.SIGNAL, ac.tallies().getOrDefault(Layer.SIGNAL, Map.of()));
        return new Result(jdk, List.copyOf(workloads), tallies, List.of("ac: " + acSummary, "b: " + bSummary));
    }

    /**
     * Layers (a) and (c) with both agents attached: the JVM starts with the weaving Java agent only
     * ({@link OracleAttachMain}), warms every workload up at once, then gets libstackreq.so and
     * liboracle.so through {@code jcmd <pid> JVMTI.agent_load}, and runs every workload for the
     * given time on the threads that warmed up.
     */
    public static Result runAttached(Jdk jdk, Path dir, List<String> workloads, double warmupSeconds,
            double seconds) {
        Path agentJar = OracleAgentJar.build(dir.resolve("oracle-agent.jar"));
        Path runDir = dir.resolve("oracle-" + jdk.feature() + "-attached").toAbsolutePath();
        prepareRunDirectory(runDir);
        Path ready = runDir.resolve("ready");
        JvmRun run = JvmRun.on(jdk, runDir).name("oracle").withoutStackreq().withoutRequester()
                .flags("-javaagent:" + agentJar + "=" + runDir.resolve("methods.txt"),
                        "-Dstackreq.oracle.attach=true",
                        "-Dstackreq.oracle.layers=ac",
                        "-XX:StartFlightRecording=filename=" + runDir.resolve("recording.jfr") + ",settings="
                                + Jfc.stackTraceRequestOnly(runDir))
                .flags(Profiler.COMMON_FLAGS.toArray(new String[0]))
                .flags(NEVER_COMPILED)
                .main(OracleAttachMain.class, Double.toString(warmupSeconds), Double.toString(seconds),
                        String.join(",", workloads), ready.toString())
                .timeout(Duration.ofSeconds(120 + (long) (warmupSeconds + seconds) * 6));
        CompletableFuture<JvmRun.Result> target = CompletableFuture.supplyAsync(run::start);
        String pid = awaitReady(ready, target);
        Path oracle = JvmRun.requesterLibrary().resolveSibling("liboracle.so").toAbsolutePath();
        List<String> loads = new ArrayList<>();
        try {
            loads.add(agentLoad(jdk, pid, JvmRun.stackreqLibrary().toAbsolutePath(),
                    "depth=1024,ring=1024" + walkerOption(runDir)));
            loads.add(agentLoad(jdk, pid, oracle, "out=" + runDir + ",layers=ac"));
        } catch (AssertionError e) {
            // The workload threads would wait for liboracle.so until the watchdog's timeout.
            ProcessHandle.of(Long.parseLong(pid)).ifPresent(ProcessHandle::destroyForcibly);
            throw new AssertionError(e.getMessage() + "\n" + target.join(), e);
        }
        JvmRun.Result result = target.join();
        if (result.exitCode() != 0 || result.crashed()) {
            throw new AssertionError("the attached oracle JVM failed (exit code " + result.exitCode() + ")\n"
                    + String.join("\n", loads) + "\n" + result);
        }
        String summary = summary(result);
        OracleCheck ac = new OracleCheck(runDir.resolve("methods.txt"),
                CompiledCode.read(runDir.resolve("compiled-code.txt")), true);
        if (ownWalker()) {
            ac.attributeWalks(agentLog(runDir));
        }
        ac.checkJvmti(runDir.resolve("jvmti-checks.txt"));
        ac.checkRequests(runDir.resolve("snapshots.txt"), runDir.resolve("recording.jfr"));
        Map<Layer, Map<String, Tally>> tallies = new java.util.LinkedHashMap<>();
        tallies.put(Layer.JVMTI, ac.tallies().getOrDefault(Layer.JVMTI, Map.of()));
        tallies.put(Layer.SIGNAL, ac.tallies().getOrDefault(Layer.SIGNAL, Map.of()));
        return new Result(jdk, List.copyOf(workloads), tallies, List.of("attached: " + summary));
    }

    private static String awaitReady(Path ready, CompletableFuture<JvmRun.Result> target) {
        try {
            while (!Files.exists(ready) || Files.readString(ready).isBlank()) {
                if (target.isDone()) {
                    throw new AssertionError("the oracle JVM ended before it warmed up\n" + target.join());
                }
                Thread.sleep(50);
            }
            return Files.readString(ready).trim();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** {@code jcmd <pid> JVMTI.agent_load <library> <options>}; fails unless the load returned 0. */
    private static String agentLoad(Jdk jdk, String pid, Path library, String options) {
        try {
            // Quoted: the diagnostic command parser would take an unquoted "a=b,c=d" for its own key=value.
            Process jcmd = new ProcessBuilder(jdk.tool("jcmd").toString(), pid, "JVMTI.agent_load",
                    library.toString(), '"' + options + '"').redirectErrorStream(true).start();
            String output = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (jcmd.waitFor() != 0 || !output.contains("return code: 0")) {
                throw new AssertionError("jcmd JVMTI.agent_load " + library + " failed:\n" + output);
            }
            return output.trim();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The system property that names the walker= option the oracle runs libstackreq.so with. */
    public static final String WALKER_PROPERTY = "stackreq.oracle.walker";

    private static String walkerOption(Path dir) {
        String walker = System.getProperty(WALKER_PROPERTY);
        // The VMStructs walker's debug log names each request it left to AsyncGetCallTrace (attributeWalks).
        return (walker == null ? "" : ",walker=" + walker) + (ownWalker() ? ",log=debug:" + agentLog(dir) : "");
    }

    /** Whether libstackreq.so runs with its VMStructs walk: the agent's default, or --walker vmstructs. */
    private static boolean ownWalker() {
        String walker = System.getProperty(WALKER_PROPERTY);
        return walker == null || walker.startsWith("vmstructs");
    }

    private static Path agentLog(Path dir) {
        return dir.resolve("stackreq.log");
    }

    /**
     * The agent appends to its log=debug file: a log left by an earlier run in the same directory
     * would name that run's walks under the same user data (request ids restart with each run).
     */
    private static void prepareRunDirectory(Path dir) {
        try {
            Files.createDirectories(dir);
            Files.deleteIfExists(agentLog(dir));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * For the real applications among the workloads: their libraries on the class path, their own
     * packages woven, and javac's round a package of the source tree (woven, javac is several times
     * slower, and a round of the whole tree would outlast a run).
     */
    static void withApplications(JvmRun run, List<String> workloads) {
        List<String> packages = new ArrayList<>();
        for (String name : workloads) {
            if (!App.NAMES.contains(name)) {
                continue;
            }
            App app = App.named(name);
            for (String prefix : app.ownPackages()) {
                // The JDK's own HTTP client is the platform class loader's: it cannot call the shadow stack.
                if (!prefix.startsWith("jdk.internal.")) {
                    packages.add(prefix);
                }
            }
            try {
                for (Path jar : App.libraries(name)) {
                    run.alsoOnClassPath(jar);
                }
            } catch (ReflectiveOperationException | java.net.URISyntaxException e) {
                throw new IllegalStateException("the libraries of " + name + " are not on this JVM's class path", e);
            }
        }
        if (!packages.isEmpty()) {
            run.flags("-D" + OracleAgent.WEAVE_PROPERTY + "=" + String.join(",", packages),
                    "-Dstackreq.apps.javac.package=" + JAVAC_PACKAGE);
        }
    }

    /** The "returns" workload's outer method and callee stay interpreted. */
    static final String[] NEVER_COMPILED = {"-XX:CompileCommand=quiet",
            "-XX:CompileCommand=exclude," + Returns.INTERPRETED[0], "-XX:CompileCommand=exclude," + Returns.INTERPRETED[1]};

    /** How long an application's set-up and last round may run past its time, woven, on a busy machine. */
    static final long APP_ROUND_SECONDS = 300;

    /** The part of commons-lang3's source tree each woven javac round compiles (and what it uses). */
    static final String JAVAC_PACKAGE = "org.apache.commons.lang3.math";

    private static String summary(JvmRun.Result result) {
        Matcher m = SUMMARY.matcher(result.stdout());
        if (!m.find()) {
            throw new AssertionError("no oracle summary line\n" + result);
        }
        if (!m.group(2).equals("0") || !m.group(3).equals("0")) {
            throw new AssertionError("the oracle's weaving is broken (" + m.group() + ")\n" + result);
        }
        return m.group();
    }

    private static String runOne(Jdk jdk, Path dir, String layers, Path agentJar, List<String> workloads,
            double seconds, Launch launch) {
        prepareRunDirectory(dir);
        Path oracle = JvmRun.requesterLibrary().resolveSibling("liboracle.so").toAbsolutePath();
        JvmRun run = JvmRun.on(jdk, dir).name("oracle").withoutRequester().wrapper(launch.wrapper());
        withApplications(run, workloads);
        run.stackreqOptions("depth=1024,ring=1024" + walkerOption(dir))
                .flags("-agentpath:" + oracle + "=out=" + dir + ",layers=" + layers + ",signals=" + launch.signals(),
                        "-javaagent:" + agentJar + "=" + dir.resolve("methods.txt"),
                        "-Dstackreq.oracle.layers=" + layers,
                        "-XX:StartFlightRecording=filename=" + dir.resolve("recording.jfr") + ",settings="
                                + Jfc.stackTraceRequestOnly(dir))
                .flags(Profiler.COMMON_FLAGS.toArray(new String[0]))
                .flags(NEVER_COMPILED)
                .main(OracleMain.class, Double.toString(seconds), String.join(",", workloads))
                .timeout(Duration.ofSeconds((60 + (long) (workloads.size() * seconds * 6)
                        + APP_ROUND_SECONDS * workloads.stream().filter(App.NAMES::contains).count()) * launch.slowdown()));
        return summary(run.run());
    }
}
