package io.stackreq.tests;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.stackreq.apps.App;
import io.stackreq.apps.AppMain;
import io.stackreq.tests.support.Accounting;
import io.stackreq.tests.support.JfrFile;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEverySupportedJdk;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real application under stackreq, as a user runs it: javac, the JDK's own compiler, in process
 * ({@link io.stackreq.apps.JavacApp}), compiling commons-lang3's {@code text} package (and what it
 * uses of the rest of the tree) for one round of warm-up and three measured, with libstackreq.so,
 * the perf agent at 1 ms of CPU on every Java thread and a JFR recording; on every supported JDK.
 * What holds however busy the machine is: every sample the perf agent says RequestStackTrace
 * accepted has exactly one event with its user data, and no event has other user data; the
 * statistics add up; and the compiling thread's stacks are javac's (its frames in nearly every
 * stack, its own methods a large part of the leaves), few failed, nearly every frame typed. The benchmark
 * tables ({@code tests/bench/run --only apps}) and the oracle on javac ({@code tests/validate
 * --workloads javac,h2}) measure the rest.
 */
class RealApplicationTest {
    static final String PACKAGE = "org.apache.commons.lang3.text";
    static final String JAVAC = "com.sun.tools.javac.";
    /** Stacks of the compiling thread in the measured rounds: enough for the shares below to mean something. */
    static final int MIN_STACKS = 300;
    /** Of them, with a javac frame: the thread runs javac and nothing else (a few are in JDK code javac set off). */
    static final double MIN_WITH_JAVAC_FRAME = 0.95;
    /** Of them, with a javac method as the leaf: the rest are collections, strings, I/O it calls. */
    static final double MIN_JAVAC_LEAF = 0.30;
    /**
     * Failed stacks of the compiling thread: javac is still being compiled in these rounds, and
     * stackreq fails a request rather than guess in the JIT's windows (code not yet described, the
     * interpreter entering or leaving a method): 2.8-3.5% on JDK 17 here.
     */
    static final double MAX_FAILED = 0.10;
    /** Frames left "Java" (unconfirmed: below the top of a stack the AsyncGetCallTrace fallback walked). */
    static final double MAX_UNTYPED = 0.01;

    @TempDir
    static Path work;

    @OnEverySupportedJdk
    void javacCompilingARealSourceTree(Jdk jdk) throws Exception {
        Path dir = work.resolve("javac-" + jdk.feature());
        Path recording = dir.resolve("recording.jfr");
        Path samples = dir.resolve("samples.jsonl");
        JvmRun run = JvmRun.on(jdk, dir).name("javac").withoutRequester()
                .flags("-agentpath:" + JvmRun.stackreqLibrary().resolveSibling("libstackreq-perf.so")
                        + "=interval=1ms,out=" + samples, "-Dstackreq.apps.javac.package=" + PACKAGE)
                .recordingTo(recording)
                .main(AppMain.class, "javac", "1", "3")
                .timeout(Duration.ofSeconds(300));
        for (Path library : App.libraries("javac")) {
            run.alsoOnClassPath(library);
        }
        JvmRun.Result result = run.run();
        Map<String, String> bench = benchLine(result);

        List<Long> accepted = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        for (String line : Files.readAllLines(samples)) {
            JsonNode sample = json.readTree(line);
            if (sample.path("type").asText().equals("sample") && sample.path("error").asInt(-1) == 0) {
                accepted.add(sample.path("userData").asLong());
            }
        }
        List<RecordedEvent> events = JfrFile.requests(recording);
        RecordedEvent statistics = JfrFile.lastStatistics(recording);
        Instant from = Instant.ofEpochMilli(Long.parseLong(bench.get("startEpochMillis")));
        Instant to = Instant.ofEpochMilli(Long.parseLong(bench.get("endEpochMillis")));
        List<RecordedEvent> compiling = events.stream()
                .filter(e -> e.getThread() != null && "app-javac-0".equals(e.getThread().getJavaName()))
                .filter(e -> !e.getStartTime().isBefore(from) && !e.getStartTime().isAfter(to))
                .collect(Collectors.toList());
        List<RecordedEvent> stacks = compiling.stream().filter(e -> !e.getBoolean("failed")).collect(Collectors.toList());
        long withJavacFrame = stacks.stream().filter(e -> JfrFile.methods(e).stream().anyMatch(m -> m.startsWith(JAVAC)))
                .count();
        Map<String, Integer> leaves = new HashMap<>();
        long javacLeaves = 0;
        long untyped = 0;
        long frames = 0;
        for (RecordedEvent e : stacks) {
            String leaf = JfrFile.topMethod(e);
            leaves.merge(leaf, 1, Integer::sum);
            javacLeaves += leaf.startsWith(JAVAC) ? 1 : 0;
            for (RecordedFrame frame : e.getStackTrace().getFrames()) {
                untyped += "Java".equals(frame.getType()) ? 1 : 0;
                frames++;
            }
        }
        String context = String.format("%s: %d samples accepted, %d events; the compiling thread in the measured "
                + "rounds: %d events, %d with a stack, %d of them with a javac frame, %d with a javac leaf; "
                + "commonest leaves %s; statistics %s", jdk, accepted.size(), events.size(), compiling.size(),
                stacks.size(), withJavacFrame, javacLeaves, commonest(leaves), JfrFile.describeStatistics(statistics));
        long failed = compiling.size() - stacks.size();
        long javacLeafCount = javacLeaves;
        long untypedFrames = untyped;
        long allFrames = frames;
        assertAll(
                () -> Accounting.assertEachIdExactlyOnce(accepted.stream().mapToLong(Long::longValue).toArray(),
                        Accounting.userData(events), jdk + " javac"),
                () -> assertEquals(statistics.getLong("accepted"), statistics.getLong("emitted")
                        + statistics.getLong("dropped"), () -> "accepted != emitted + dropped; " + context),
                () -> assertEquals(events.size(), statistics.getLong("emitted"),
                        () -> "emitted != events in the recording; " + context),
                () -> assertTrue(stacks.size() >= MIN_STACKS, () -> "too few stacks to judge; " + context),
                () -> assertTrue(failed <= MAX_FAILED * compiling.size(), () -> "too many failed; " + context),
                () -> assertTrue(withJavacFrame >= MIN_WITH_JAVAC_FRAME * stacks.size(),
                        () -> "stacks of the compiling thread without javac in them; " + context),
                () -> assertTrue(javacLeafCount >= MIN_JAVAC_LEAF * stacks.size(),
                        () -> "javac's own methods are too few of the leaves; " + context),
                () -> assertTrue(untypedFrames <= MAX_UNTYPED * allFrames,
                        () -> untypedFrames + " of " + allFrames + " frames left untyped (Java); " + context));
    }

    private static Map<String, String> benchLine(JvmRun.Result result) {
        for (String line : result.lines()) {
            if (line.startsWith("BENCH ")) {
                Map<String, String> fields = new HashMap<>();
                for (String part : line.substring(6).split(" ")) {
                    int eq = part.indexOf('=');
                    fields.put(part.substring(0, eq), part.substring(eq + 1));
                }
                return fields;
            }
        }
        throw new AssertionError("no BENCH line\n" + result);
    }

    private static String commonest(Map<String, Integer> counts) {
        return counts.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed()).limit(8)
                .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", ", "[", "]"));
    }
}
