package io.stackreq.e2e.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.stackreq.fixtures.FixtureFrame;
import io.stackreq.fixtures.FixtureRecording;
import io.stackreq.tests.support.JfrFile;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEachJdk;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedThread;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 3, acceptance 6: a recording written by JMC's {@code flightrecorder.writer} with
 * JDK-native-shaped {@code jdk.StackTraceRequest} events (what a JDK with the feature writes) and a
 * matching sample file go through the CLI jar, run as a process, exactly like stackreq's own:
 * a hand-made case with known numbers, and stackreq's own TwoPhase recording rewritten in the
 * JDK's shape, which must give the same report and the same joined samples.
 */
@Tag("alone")
class NativeShapedRecordingTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long T0 = FixtureRecording.START_EPOCH_NANOS;

    @TempDir
    Path dir;

    private static FixtureFrame frame(String qualified, int line, String type) {
        int dot = qualified.lastIndexOf('.');
        return new FixtureFrame(qualified.substring(0, dot), qualified.substring(dot + 1), line, type);
    }

    @Test
    void handMadeNativeRecordingIsJoinedWithItsSamples() throws IOException {
        FixtureFrame[] hot = {frame("app.Hot.spin", 12, "JIT compiled"), frame("app.Main.main", 5, "Interpreted")};
        FixtureFrame[] cold = {frame("app.Cold.touch", 20, "Inlined"), frame("app.Main.main", 6, "Interpreted")};
        // At userData ms after T0, on OS threads 1001 (main) and 1020 (worker).
        FixtureRecording recording = new FixtureRecording();
        for (long id = 1; id <= 6; id++) {
            recording.event(id, "main", 1, false, false, hot);
        }
        recording.event(7, "worker", 20, false, false, cold);
        recording.event(8, "worker", 20, false, false, cold);
        recording.event(9, "main", 1, false, true, cold);  // taken at a safepoint
        recording.event(10, "main", 1, true, false);       // no stack could be taken
        recording.event(13, "main", 1, false, false, hot); // no sample refers to it
        Path jfr = recording.write(dir.resolve("native.jfr"));

        List<String> samples = new ArrayList<>();
        samples.add("{\"type\":\"start\",\"engine\":\"perf\",\"leader\":\"task-clock\",\"events\":[\"task-clock\","
                + "\"page-faults\"],\"period\":1000000,\"periodUnit\":\"ns\",\"pid\":1000,"
                + "\"clock\":\"CLOCK_MONOTONIC\"}");
        for (long id = 1; id <= 6; id++) {
            samples.add(sample(id, 1001, 1_000_000, 0, 0));
        }
        samples.add(sample(7, 1020, 2_000_000, 50, 0));
        samples.add(sample(8, 1020, 2_000_000, 50, 0));
        samples.add(sample(9, 1001, 1_000_000, 0, 0));
        samples.add(sample(10, 1001, 1_000_000, 3, 0));   // its event failed
        samples.add(sample(11, 1001, 1_000_000, 0, 0));   // accepted, but no event has it
        samples.add(sample(12, 1001, 1_000_000, 0, 112)); // refused: WRONG_PHASE
        samples.add("{\"type\":\"end\",\"samples\":12,\"lost\":0,\"errors\":{\"0\":11,\"112\":1}}");
        Path sampleFile = Files.write(dir.resolve("samples.jsonl"), samples);

        JsonNode report = report(jfr, sampleFile, "--top", "0");
        String context = report.toPrettyString();
        assertEquals("task-clock", report.path("metric").asText(), context);
        assertEquals(11_000_000, report.path("totalWeight").asLong(), context);
        assertEquals(9, report.path("matched").asLong(), context);
        assertEquals(2, report.path("unmatched").asLong(), context);
        JsonNode quality = report.path("quality");
        assertEquals(12, quality.path("samples").asLong(), context);
        assertEquals(81.818, quality.path("matchedPct").asDouble(), 0.0005, context);
        assertEquals(1, quality.path("noEvent").asLong(), context);
        assertEquals(1, quality.path("failedEvent").asLong(), context);
        assertEquals(1, quality.path("rejected").asLong(), context);
        assertEquals(11, quality.path("events").asLong(), context);
        assertEquals(1, quality.path("eventsWithoutSample").asLong(), context);
        assertEquals(1, quality.path("biased").asLong(), context);
        assertEquals(-1, quality.path("droppedInJvm").asLong(), "no stackreq statistics in a JDK's recording");
        assertEntry(report, "app.Hot.spin", 6_000_000, 54.545, 6_000_000);
        assertEntry(report, "app.Cold.touch", 5_000_000, 45.455, 5_000_000);
        assertEntry(report, "app.Main.main", 0, 0, 11_000_000);

        JsonNode faults = report(jfr, sampleFile, "--metric", "page-faults", "--top", "0");
        assertEquals(100, faults.path("totalWeight").asLong(), faults.toPrettyString());
        assertEntry(faults, "app.Cold.touch", 100, 100, 100);

        JsonNode byLine = report(jfr, sampleFile, "--by", "line", "--top", "0");
        JsonNode spinLine = null;
        for (JsonNode entry : byLine.path("entries")) {
            if (entry.path("name").asText().equals("app.Hot.spin")) {
                spinLine = entry;
            }
        }
        assertTrue(spinLine != null && spinLine.path("line").asInt() == 12
                && spinLine.path("self").asLong() == 6_000_000,
                byLine.toPrettyString());

        Map<Long, JsonNode> joined = join(jfr, sampleFile);
        assertEquals(12, joined.size(), joined.toString());
        JsonNode first = joined.get(1L);
        assertEquals("matched", first.path("status").asText(), first.toString());
        assertEquals("main", first.path("thread").asText(), first.toString());
        assertEquals(T0 + 1_000_000, first.path("eventTime").asLong(), first.toString());
        assertEquals(List.of("app.Hot.spin", "app.Main.main"), methods(first), first.toString());
        assertEquals("JIT compiled", first.path("stack").get(0).path("type").asText(), first.toString());
        assertEquals(12, first.path("stack").get(0).path("line").asInt(), first.toString());
        assertEquals("Interpreted", first.path("stack").get(1).path("type").asText(), first.toString());
        JsonNode seventh = joined.get(7L);
        assertEquals("worker", seventh.path("thread").asText(), seventh.toString());
        assertEquals("Inlined", seventh.path("stack").get(0).path("type").asText(), seventh.toString());
        assertEquals(50, seventh.path("deltas").path("page-faults").asLong(), seventh.toString());
        assertTrue(joined.get(9L).path("biased").asBoolean(), joined.get(9L).toString());
        assertEquals("failed_event", joined.get(10L).path("status").asText());
        assertEquals("no_event", joined.get(11L).path("status").asText());
        assertEquals("rejected", joined.get(12L).path("status").asText());
    }

    /**
     * stackreq's own TwoPhase recording, its jdk.StackTraceRequest events copied (userData, time,
     * thread, frames, flags) into a JDK-shaped recording: the same samples give the same report
     * and the same joined samples. Only what a JDK's recording cannot have differs: stackreq's
     * statistics, the requester (stackreq's addition to the event), and the javaThreadId (the
     * writer's thread type has none); and the JVM's own samples are not copied.
     */
    @OnEachJdk
    void stackreqsOwnRecordingRewrittenInTheJdkShapeJoinsTheSame(Jdk jdk) throws IOException {
        Profiles.Profiled run = Profiles.twoPhase(jdk);
        Path own = run.file("recording.jfr");
        Path samples = run.file("samples.jsonl");
        List<RecordedEvent> requests = JfrFile.requests(own);
        // The chunk starts at the first event, so every event keeps its time to the nanosecond.
        long start = requests.stream().mapToLong(event -> epochNanos(event.getStartTime())).min()
                .orElse(FixtureRecording.START_EPOCH_NANOS);
        FixtureRecording rewritten = new FixtureRecording().startingAt(start);
        for (RecordedEvent event : requests) {
            rewritten.add(copy(event, start));
        }
        Path shaped = rewritten.write(dir.resolve("jdk-shaped.jfr"));

        // The report by method, and below every joined sample with its whole stack (lines included).
        ObjectNode expectedReport = (ObjectNode) report(own, samples, "--top", "0");
        ObjectNode actualReport = (ObjectNode) report(shaped, samples, "--top", "0");
        for (ObjectNode report : List.of(expectedReport, actualReport)) {
            report.remove("recording");
            ObjectNode quality = (ObjectNode) report.path("quality");
            quality.remove("statistics");
            quality.remove("droppedInJvm");
            ((ObjectNode) report.path("scope")).remove("requester");
            // Only the requests are copied: the JVM's own samples, which report puts beside each
            // method, are not.
            report.remove("jfrSamples");
            for (JsonNode entry : report.path("entries")) {
                ((ObjectNode) entry).remove("jfr");
            }
        }
        assertEquals(expectedReport, actualReport, () -> jdk + ": the JDK-shaped recording reports differently\n"
                + "stackreq's:\n" + expectedReport.toPrettyString() + "\nJDK-shaped:\n"
                + actualReport.toPrettyString());
        System.out.printf("%s: %d events of stackreq's recording rewritten in the JDK's shape report the same%n", jdk,
                requests.size());

        Map<Long, JsonNode> expected = join(own, samples);
        Map<Long, JsonNode> actual = join(shaped, samples);
        assertEquals(expected.keySet(), actual.keySet(), jdk + ": joined samples differ in userData");
        for (Map.Entry<Long, JsonNode> entry : expected.entrySet()) {
            ObjectNode mine = (ObjectNode) entry.getValue().deepCopy();
            ObjectNode theirs = (ObjectNode) actual.get(entry.getKey()).deepCopy();
            mine.remove("javaThreadId");
            theirs.remove("javaThreadId");
            assertEquals(mine, theirs, () -> jdk + ": joined sample " + entry.getKey() + " differs\nstackreq's: "
                    + entry.getValue() + "\nJDK-shaped: " + actual.get(entry.getKey()));
        }
    }

    private static FixtureRecording.Event copy(RecordedEvent event, long chunkStartEpochNanos) {
        RecordedThread thread = event.getThread();
        String name = thread.getJavaName() != null ? thread.getJavaName() : thread.getOSName();
        List<FixtureFrame> frames = new ArrayList<>();
        if (event.getStackTrace() != null) {
            for (RecordedFrame frame : event.getStackTrace().getFrames()) {
                RecordedMethod method = frame.getMethod();
                if (method == null || method.getType() == null) {
                    throw new AssertionError("a frame without method or class in " + JfrFile.describe(event));
                }
                frames.add(new FixtureFrame(method.getType().getName(), method.getName(), method.getDescriptor(),
                        frame.getLineNumber(), frame.getBytecodeIndex(), frame.getType()));
            }
        }
        return new FixtureRecording.Event(event.getLong("userData"), name, thread.getOSThreadId(),
                event.getBoolean("failed"), event.getBoolean("biased"),
                epochNanos(event.getStartTime()) - chunkStartEpochNanos, frames.isEmpty() ? null : frames);
    }

    private static long epochNanos(Instant time) {
        return time.getEpochSecond() * 1_000_000_000L + time.getNano();
    }

    private static String sample(long userData, long tid, long clock, long faults, int error) {
        return String.format("{\"type\":\"sample\",\"userData\":%d,\"tid\":%d,\"time\":%d,\"cpu\":0,"
                + "\"event\":\"task-clock\",\"period\":1000000,\"deltas\":{\"task-clock\":%d,\"page-faults\":%d},"
                + "\"error\":%d}", userData, tid, 5_000_000_000L + userData * 1_000_000, clock, faults, error);
    }

    private JsonNode report(Path recording, Path samples, String... options) throws IOException {
        List<String> args = new ArrayList<>(List.of("report", recording.toString(), "--samples", samples.toString(),
                "--format", "json"));
        args.addAll(List.of(options));
        JvmRun.Result result = JvmRun.cli(Jdk.current(), dir, args).name("report-" + recording.getFileName())
                .timeout(Duration.ofSeconds(120)).start();
        assertEquals(0, result.exitCode(), () -> "report failed\n" + result);
        return JSON.readTree(result.stdout());
    }

    /** {@code join REC --samples S -o FILE}, by userData. */
    private Map<Long, JsonNode> join(Path recording, Path samples) throws IOException {
        Path out = dir.resolve(recording.getFileName() + ".joined.jsonl");
        JvmRun.Result result = JvmRun.cli(Jdk.current(), dir,
                List.of("join", recording.toString(), "--samples", samples.toString(), "-o", out.toString()))
                .name("join-" + recording.getFileName()).timeout(Duration.ofSeconds(120)).start();
        assertEquals(0, result.exitCode(), () -> "join failed\n" + result);
        Map<Long, JsonNode> byUserData = new HashMap<>();
        for (String line : Files.readAllLines(out)) {
            JsonNode node = JSON.readTree(line);
            byUserData.put(node.path("userData").asLong(), node);
        }
        return byUserData;
    }

    private static List<String> methods(JsonNode joined) {
        List<String> methods = new ArrayList<>();
        joined.path("stack").forEach(frame -> methods.add(frame.path("method").asText()));
        return methods;
    }

    private static void assertEntry(JsonNode report, String method, long self, double selfPct, long total) {
        JsonNode entry = Profiles.entry(report, method);
        String context = method + " in " + report.path("entries");
        assertEquals(self, entry.path("self").asLong(), context);
        assertEquals(selfPct, entry.path("selfPct").asDouble(), 0.0005, context);
        assertEquals(total, entry.path("total").asLong(), context);
    }
}
