package io.stackreq.e2e.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.stackreq.demo.TwoPhase;
import io.stackreq.testapp.AttachTarget;
import io.stackreq.testapp.JvmtiError;
import io.stackreq.testapp.MainThreadTarget;
import io.stackreq.tests.support.AttachTargetRun;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.MethodSplit;
import io.stackreq.tests.support.OnEachJdk;
import org.junit.jupiter.api.Tag;

/**
 * Issue 28, item 1: {@code stackreq profile --pid} on a JVM started without agents whose work runs
 * on its {@code main} thread ({@link MainThreadTarget}: about 50/25/25 of methodA, methodB and
 * methodC, measured with the thread CPU clock) sampled only JFR's threads (13 samples in 10 s):
 * the perf agent finds a thread that was running before the attach by its name in
 * /proc/self/task/N/comm, and main's native thread keeps the process's name ({@code java}). Here
 * each method's share of the three is within 3 points of the measured split, main is sampled
 * about once per ms of its CPU time, and no request is refused with UNATTACHED_THREAD.
 *
 * <p>The second test adds two pool threads of one name, started before the attach and parked
 * until the profiler is attached, then woken: they are sampled too (two native threads of one
 * name were not sampled either), and the split holds over the three threads.
 */
@Tag("alone")
class AttachMainThreadTest {
    private static final String[] METHODS = {TwoPhase.METHOD_A, TwoPhase.METHOD_B,
            AttachTarget.class.getName() + ".methodC"};
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String DURATION = "4s";

    @OnEachJdk
    void samplesTheMainThreadAfterAnAttach(Jdk jdk) throws Exception {
        Path dir = workDir(jdk, "attach-main");
        AttachTargetRun target = AttachTargetRun.start(jdk, dir, MainThreadTarget.class, List.of("warmupSeconds=2"),
                "-Xms64m", "-Xmx64m");
        JvmRun.Result exited;
        try {
            long pid = target.awaitPid();
            long[] before = lastCpuLine(dir);
            JvmRun.Result run = profile(dir, pid).get(120, TimeUnit.SECONDS);
            long[] after = lastCpuLine(dir);
            checkOutputs(jdk, dir, run);
            JsonNode report = checkShares(jdk, dir, before, after, run);
            assertTrue(threadNames(report).contains("main"), () -> "main was not sampled: " + threadNames(report));
            // main is busy all the time: about one task-clock sample per ms of its CPU.
            Map<Long, Integer> perTid = samplesPerTid(dir);
            long mainSamples = perTid.values().stream().mapToInt(Integer::intValue).max().orElse(0);
            long cpuMs = (after[0] + after[1] + after[2] - before[0] - before[1] - before[2]) / 1_000_000;
            System.out.printf(Locale.ROOT, "%s attach-main: samples per tid %s; main's A+B+C CPU in the window %d ms%n",
                    jdk, perTid, cpuMs);
            assertTrue(mainSamples > cpuMs / 2, () -> "main has " + mainSamples + " samples for about " + cpuMs
                    + " ms of CPU: " + perTid);
        } finally {
            exited = target.stop();
        }
        checkExit(exited);
    }

    @OnEachJdk
    void samplesParkedPoolThreadsWokenAfterAnAttach(Jdk jdk) throws Exception {
        Path dir = workDir(jdk, "attach-main-pool");
        AttachTargetRun target = AttachTargetRun.start(jdk, dir, MainThreadTarget.class,
                List.of("warmupSeconds=2", "pool=2"), "-Xms64m", "-Xmx64m");
        JvmRun.Result exited;
        try {
            long pid = target.awaitPid();
            long[] before = lastCpuLine(dir);
            CompletableFuture<JvmRun.Result> profile = profile(dir, pid);
            Path samples = dir.resolve("out").resolve("samples.jsonl");
            while (!Files.exists(samples) || Files.size(samples) < 4096) {
                if (profile.isDone()) {
                    fail("profile ended before it sampled\n" + profile.get());
                }
                Thread.sleep(100);
            }
            Files.writeString(dir.resolve("wake"), "");
            JvmRun.Result run = profile.get(120, TimeUnit.SECONDS);
            long[] after = lastCpuLine(dir);
            checkOutputs(jdk, dir, run);
            assertEquals(2, after[3], "the pool threads were not woken during the profile");
            JsonNode report = checkShares(jdk, dir, before, after, run);
            List<String> names = threadNames(report);
            assertTrue(names.contains("main") && names.contains(MainThreadTarget.POOL_THREAD_NAME),
                    () -> "main or the pool threads were not sampled: " + names);
            Map<Long, Integer> perTid = samplesPerTid(dir);
            System.out.printf(Locale.ROOT, "%s attach-main-pool: samples per tid %s%n", jdk, perTid);
            long busy = perTid.values().stream().filter(count -> count >= 500).count();
            assertEquals(3, busy, () -> "expected main and both pool threads with 500+ samples each: " + perTid);
        } finally {
            exited = target.stop();
        }
        checkExit(exited);
    }

    private static Path workDir(Jdk jdk, String name) throws IOException {
        Path dir = JvmRun.targetDir().resolve("e2e-cli").resolve("jdk" + jdk.feature()).resolve(name);
        Profiles.deleteTree(dir);
        Files.createDirectories(dir);
        return dir;
    }

    private static CompletableFuture<JvmRun.Result> profile(Path dir, long pid) {
        return CompletableFuture.supplyAsync(() -> JvmRun.cli(Jdk.current(), dir, List.of("profile", "--pid",
                Long.toString(pid), "--duration", DURATION, "-e", "task-clock", "-i", "1ms", "-o",
                dir.resolve("out").toString())).name("profile").timeout(Duration.ofSeconds(120)).start());
    }

    private static void checkOutputs(Jdk jdk, Path dir, JvmRun.Result run) {
        assertEquals(0, run.exitCode(), () -> jdk + ": profile --pid failed\n" + run);
        for (String name : Profiles.OUTPUT_FILES) {
            Path file = dir.resolve("out").resolve(name);
            assertTrue(Files.isRegularFile(file) && file.toFile().length() > 0, () -> file + " missing or empty\n"
                    + run);
        }
    }

    private static void checkExit(JvmRun.Result exited) {
        assertEquals(0, exited.exitCode(), () -> "the profiled JVM failed\n" + exited);
        assertFalse(exited.crashed(), () -> "the profiled JVM crashed\n" + exited);
    }

    /** Each method's share of A+B+C within 3 points of the target's own CPU-time split; the report. */
    private static JsonNode checkShares(Jdk jdk, Path dir, long[] before, long[] after, JvmRun.Result run)
            throws IOException {
        Path out = dir.resolve("out");
        JvmRun.Result report = JvmRun.cli(Jdk.current(), dir, List.of("report", out.resolve("recording.jfr").toString(),
                "--samples", out.resolve("samples.jsonl").toString(), "--threads", "--format", "json"))
                .name("report").timeout(Duration.ofSeconds(120)).start();
        assertEquals(0, report.exitCode(), () -> "report failed\n" + report);
        JsonNode json = JSON.readTree(report.stdout());

        MethodSplit split = MethodSplit.of(json, METHODS, before, after);
        assertEquals(List.of(), split.missing(json),
                () -> "methods not in the report: " + Profiles.entryNames(json));
        String table = jdk + " " + dir.getFileName() + ": method share of A+B+C, measured vs truth:" + split.describe()
                + "; quality " + json.path("quality");
        System.out.println(table);
        assertTrue(split.measuredSum() > 90, () -> "A+B+C should be nearly every sample\n" + table + "\n" + run);
        for (int i = 0; i < METHODS.length; i++) {
            assertEquals(split.truth()[i], split.measured()[i], 3, table + "\n" + run);
        }

        JsonNode quality = json.path("quality");
        JsonNode statistics = quality.path("statistics");
        assertEquals(statistics.path("accepted").asLong(), statistics.path("emitted").asLong()
                + statistics.path("dropped").asLong(), () -> "accepted != emitted + dropped: " + quality);
        assertEquals(0, quality.path("noEvent").asLong(), () -> "samples without their event: " + quality);

        List<String> sampleLines = Files.readAllLines(out.resolve("samples.jsonl"));
        JsonNode end = JSON.readTree(sampleLines.get(sampleLines.size() - 1));
        assertEquals("end", end.path("type").asText(), "samples.jsonl has no end line");
        assertFalse(end.path("errors").has(Integer.toString(JvmtiError.UNATTACHED_THREAD)),
                () -> "requests refused with UNATTACHED_THREAD: " + end);
        return json;
    }

    private static List<String> threadNames(JsonNode report) {
        List<String> threads = new ArrayList<>();
        for (JsonNode thread : report.path("threads")) {
            threads.add(thread.path("thread").asText());
        }
        return threads;
    }

    private static Map<Long, Integer> samplesPerTid(Path dir) throws IOException {
        Map<Long, Integer> perTid = new TreeMap<>();
        for (String line : Files.readAllLines(dir.resolve("out").resolve("samples.jsonl"))) {
            JsonNode sample = JSON.readTree(line);
            if (sample.path("type").asText().equals("sample")) {
                perTid.merge(sample.path("tid").asLong(), 1, Integer::sum);
            }
        }
        return perTid;
    }

    /** The last complete "cpu A B C poolWoken" line the target printed. */
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
}
