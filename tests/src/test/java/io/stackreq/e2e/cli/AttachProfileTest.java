package io.stackreq.e2e.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.stackreq.demo.TwoPhase;
import io.stackreq.testapp.AttachTarget;
import io.stackreq.testapp.JvmtiError;
import io.stackreq.tests.support.AttachTargetRun;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.MethodSplit;
import io.stackreq.tests.support.OnEverySupportedJdk;
import org.junit.jupiter.api.Tag;

/**
 * Issue 16, acceptance 1-4: a JVM started without agents ({@link AttachTarget}: two workers
 * started before any attach split their CPU time 3:2:1 between methodA, methodB and methodC, and
 * measure it with the thread CPU clock) is profiled with {@code stackreq profile --pid} for 5 s
 * after a warm-up: each method's share of the three is within 3 points of the measured split, the
 * workers started before the attach are sampled, and so is a thread started after it; no sample
 * is refused with UNATTACHED_THREAD (a late worker's last signals, after stackreq's ThreadEnd and
 * before the perf agent's, get THREAD_NOT_ALIVE), and every accepted request is one event with its
 * sample.
 * Then four more {@code profile --pid} runs on the same JVM reuse the loaded agents (libstackreq
 * says once per run that it is loaded already), the second ended early by SIGINT to the CLI
 * (Ctrl-C), which still writes every output: the JVM does not crash, exits normally, and its RSS
 * after the fifth run is within 10 MiB of after the first (the heap is fixed and pre-touched, so
 * that RSS follows native memory).
 *
 * On the platform set's other JDKs only the first profile runs.
 *
 * <p>JFR before the attach: on JDK 17 the target records nothing, so JFR starts with the profile's
 * recording, after libstackreq is loaded; on the other JDKs it runs a recording of its own from
 * the start, so libstackreq meets JFR initialized and a recording running.
 */
@Tag("alone")
class AttachProfileTest {
    private static final String TARGET = AttachTarget.class.getName();
    private static final String[] METHODS = {TwoPhase.METHOD_A, TwoPhase.METHOD_B, TARGET + ".methodC"};
    private static final long MAX_RSS_GROWTH_KIB = 10 * 1024;
    private static final int CYCLES = 5;
    private static final ObjectMapper JSON = new ObjectMapper();

    @OnEverySupportedJdk
    void profilesARunningJvmAccuratelyAndRepeatedly(Jdk jdk) throws Exception {
        Path dir = JvmRun.targetDir().resolve("e2e-cli").resolve("jdk" + jdk.feature()).resolve("attach");
        Profiles.deleteTree(dir);
        Files.createDirectories(dir);
        List<String> flags = new ArrayList<>(List.of("-Xms64m", "-Xmx64m", "-XX:+AlwaysPreTouch"));
        if (jdk.feature() != 17) {
            flags.add("-XX:StartFlightRecording:name=own,filename=" + dir.resolve("own.jfr"));
        }
        AttachTargetRun target = AttachTargetRun.start(jdk, dir, 3, flags.toArray(String[]::new));
        // On the platform set's other JDKs, the attach itself: reusing the loaded agents is
        // stackreq's own code, which the whole suite's JDKs cover.
        boolean repeated = Jdk.all().anyMatch(jdk::equals);
        JvmRun.Result exited;
        try {
            long pid = target.awaitPid();
            long[] before = lastCpuLine(dir);
            JvmRun.Result first = profile(jdk, dir, pid, 1, "5s");
            long[] after = lastCpuLine(dir);
            long firstRss = rssKib(pid);
            checkShares(jdk, dir, before, after, first);

            if (repeated) {
                long lastRss = firstRss;
                List<Long> rss = new ArrayList<>(List.of(firstRss));
                JvmRun.Result interrupted = profileUntilCtrlC(jdk, dir, pid, 2);
                assertTrue(interrupted.stderr().contains("(ended early by Ctrl-C)"), () -> "not ended by Ctrl-C\n"
                        + interrupted);
                rss.add(rssKib(pid));
                for (int cycle = 3; cycle <= CYCLES; cycle++) {
                    profile(jdk, dir, pid, cycle, "1s");
                    lastRss = rssKib(pid);
                    rss.add(lastRss);
                }
                System.out.printf(Locale.ROOT, "%s attach: RSS after each profile (KiB) %s%n", jdk, rss);
                long growth = lastRss - firstRss;
                assertTrue(growth <= MAX_RSS_GROWTH_KIB, jdk + ": RSS grew by " + growth + " KiB from the first to the "
                        + "fifth profile (limit " + MAX_RSS_GROWTH_KIB + " KiB): " + rss);
            }
        } finally {
            exited = target.stop();
        }
        assertEquals(0, exited.exitCode(), () -> "the profiled JVM failed\n" + exited);
        assertFalse(exited.crashed(), () -> "the profiled JVM crashed\n" + exited);
        long loads = exited.stderr().lines().filter(line -> line.matches("\\[stackreq\\] stackreq \\S+ on JDK .*"))
                .count();
        long reloads = exited.stderr().lines().filter(line -> line.contains("is already loaded in this JVM")).count();
        assertEquals(1, loads, () -> "libstackreq should start once\n" + exited);
        assertEquals(repeated ? CYCLES - 1 : 0, reloads,
                () -> "every later profile should find libstackreq loaded\n" + exited);
    }

    private static void checkShares(Jdk jdk, Path dir, long[] before, long[] after, JvmRun.Result run)
            throws IOException {
        Path out = dir.resolve("out1");
        JvmRun.Result report = JvmRun.cli(Jdk.current(), dir, List.of("report", out.resolve("recording.jfr").toString(),
                "--samples", out.resolve("samples.jsonl").toString(), "--threads", "--format", "json"))
                .name("report").timeout(Duration.ofSeconds(120)).start();
        assertEquals(0, report.exitCode(), () -> "report failed\n" + report);
        JsonNode json = JSON.readTree(report.stdout());

        MethodSplit split = MethodSplit.of(json, METHODS, before, after);
        assertEquals(List.of(), split.missing(json),
                () -> "methods not in the report: " + Profiles.entryNames(json));
        String table = jdk + " attach: method share of A+B+C, measured vs truth:" + split.describe()
                + "; quality " + json.path("quality");
        System.out.println(table);
        for (int i = 0; i < METHODS.length; i++) {
            assertEquals(split.truth()[i], split.measured()[i], 3, table + "\n" + run);
        }

        // Exact accounting after an attach: every accepted request is one event, each with its sample.
        JsonNode quality = json.path("quality");
        JsonNode statistics = quality.path("statistics");
        assertEquals(statistics.path("accepted").asLong(), statistics.path("emitted").asLong()
                + statistics.path("dropped").asLong(), () -> "accepted != emitted + dropped: " + quality);
        assertEquals(0, quality.path("noEvent").asLong(), () -> "samples without their event: " + quality);
        assertEquals(0, quality.path("eventsWithoutSample").asLong(), () -> "events without a sample: " + quality);

        List<String> threads = new ArrayList<>();
        for (JsonNode thread : json.path("threads")) {
            threads.add(thread.path("thread").asText());
        }
        for (String worker : List.of("attach-worker-0", "attach-worker-1")) {
            assertTrue(threads.contains(worker), () -> worker + " (started before the attach) was not sampled: "
                    + threads);
        }
        long lateWorkersBefore = before[3];
        assertTrue(threads.stream().anyMatch(name -> name.startsWith("late-worker-")
                && Long.parseLong(name.substring("late-worker-".length())) > lateWorkersBefore),
                () -> "no thread started after the attach was sampled: " + threads);

        List<String> sampleLines = Files.readAllLines(out.resolve("samples.jsonl"));
        JsonNode end = JSON.readTree(sampleLines.get(sampleLines.size() - 1));
        assertEquals("end", end.path("type").asText(), "samples.jsonl has no end line");
        assertFalse(end.path("errors").has(Integer.toString(JvmtiError.UNATTACHED_THREAD)),
                () -> "requests refused with UNATTACHED_THREAD: " + end);
    }

    private static JvmRun.Result profile(Jdk jdk, Path dir, long pid, int cycle, String duration) {
        JvmRun.Result run = JvmRun.cli(Jdk.current(), dir, List.of("profile", "--pid", Long.toString(pid),
                "--duration", duration, "-e", "task-clock", "-i", "1ms", "-o", dir.resolve("out" + cycle).toString()))
                .name("profile" + cycle).timeout(Duration.ofSeconds(120)).start();
        return checkOutputs(jdk, dir, cycle, run);
    }

    /**
     * A profile for 100 s, ended by SIGINT to the CLI (what Ctrl-C sends) once the perf agent has
     * written samples: it must still write everything.
     */
    private static JvmRun.Result profileUntilCtrlC(Jdk jdk, Path dir, long pid, int cycle) throws Exception {
        Path samples = dir.resolve("out" + cycle).resolve("samples.jsonl");
        String output = "-o=" + dir.resolve("out" + cycle);
        // A process started in the background by a shell without job control (CI runners, `cmd &`)
        // inherits SIGINT ignored, and the JVM keeps it so: Ctrl-C would never reach the CLI.
        CompletableFuture<JvmRun.Result> run = CompletableFuture.supplyAsync(() -> JvmRun.cli(Jdk.current(), dir,
                List.of("profile", "--pid", Long.toString(pid), "--duration", "100s", output))
                .wrapper(List.of("env", "--default-signal=INT")).name("profile" + cycle)
                .timeout(Duration.ofSeconds(120)).start());
        while (!Files.exists(samples) || Files.size(samples) < 4096) {
            if (run.isDone()) {
                fail("profile ended before it sampled\n" + run.get());
            }
            Thread.sleep(100);
        }
        ProcessHandle cli = ProcessHandle.current().descendants()
                .filter(process -> process.info().arguments().map(args -> List.of(args).contains(output))
                        .orElse(false))
                .findFirst().orElseThrow(() -> new AssertionError("the profile's process is not found"));
        new ProcessBuilder("kill", "-INT", Long.toString(cli.pid())).inheritIO().start().waitFor();
        return checkOutputs(jdk, dir, cycle, run.get(120, TimeUnit.SECONDS));
    }

    private static JvmRun.Result checkOutputs(Jdk jdk, Path dir, int cycle, JvmRun.Result run) {
        assertEquals(0, run.exitCode(), () -> jdk + ": profile --pid, run " + cycle + ", failed\n" + run);
        for (String name : Profiles.OUTPUT_FILES) {
            Path file = dir.resolve("out" + cycle).resolve(name);
            assertTrue(Files.isRegularFile(file) && file.toFile().length() > 0, () -> file + " missing or empty\n"
                    + run);
        }
        return run;
    }

    /** The last complete "cpu A B C lateWorkers" line the target printed. */
    private static long[] lastCpuLine(Path dir) throws IOException {
        String text = Files.readString(dir.resolve("target.out"));
        List<String> lines = text.substring(0, text.lastIndexOf('\n') + 1).lines().toList();
        for (int i = lines.size() - 1; i >= 0; i--) {
            String[] fields = lines.get(i).split(" ");
            if (fields.length == 5 && fields[0].equals("cpu")) {
                long[] values = new long[4];
                for (int j = 0; j < 4; j++) {
                    values[j] = Long.parseLong(fields[j + 1]);
                }
                return values;
            }
        }
        throw new AssertionError("the target printed no cpu line yet: " + lines);
    }

    private static long rssKib(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the RSS of " + pid, e);
        }
        throw new AssertionError("no VmRSS for " + pid);
    }
}
