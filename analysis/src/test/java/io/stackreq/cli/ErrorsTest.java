package io.stackreq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import io.stackreq.fixtures.Cli;
import io.stackreq.fixtures.FixtureFrame;
import io.stackreq.fixtures.FixtureJfrSamples;
import io.stackreq.fixtures.FixtureRecording;
import io.stackreq.fixtures.FixtureSamples;
import io.stackreq.fixtures.ScenarioFixture;
import io.stackreq.model.SampleFileReader;

/** Every input problem: one line on stderr, exit code 2, no Java stack trace. */
class ErrorsTest extends ScenarioFixture {

    private static String failsWithOneLine(Object... args) {
        Cli.Result result = Cli.run(args);
        assertEquals(2, result.exitCode(), "exit code; stderr: " + result.err());
        assertEquals("", result.out());
        String err = result.err();
        assertEquals(1, err.lines().count(), "one line: " + err);
        assertTrue(err.startsWith("stackreq: "), err);
        assertFalse(err.contains("Exception") || err.contains("\tat "), "no Java stack trace: " + err);
        return err;
    }

    @Test
    void missingRecording() {
        String err = failsWithOneLine("report", directory.resolve("nope.jfr"));
        assertTrue(err.contains("recording not found") && err.contains("nope.jfr"), err);
    }

    @Test
    void corruptRecording() throws IOException {
        Path corrupt = Files.writeString(directory.resolve("corrupt.jfr"), "this is not a flight recording");
        String err = failsWithOneLine("report", corrupt);
        assertTrue(err.contains("cannot read recording") && err.contains("corrupt.jfr"), err);
    }

    @Test
    void truncatedRecordingHeader() throws IOException {
        byte[] recording = Files.readAllBytes(scenario.recording);
        Path truncated = Files.write(directory.resolve("truncated.jfr"), java.util.Arrays.copyOf(recording, 40));
        String err = failsWithOneLine("report", truncated);
        assertTrue(err.contains("truncated.jfr"), err);
    }

    @Test
    void recordingWithoutStackTraceRequestEvents() throws IOException {
        Path other = new FixtureRecording().withoutStackTraceRequestType().write(directory.resolve("other.jfr"));
        String err = failsWithOneLine("flame", other, "-o", directory.resolve("never.html"));
        assertTrue(err.contains("has no jdk.StackTraceRequest events"), err);
        assertFalse(Files.exists(directory.resolve("never.html")));
    }

    @Test
    void missingSampleFile() {
        String err = failsWithOneLine("report", scenario.recording, "--samples", directory.resolve("none.jsonl"));
        assertTrue(err.contains("sample file not found"), err);
    }

    @Test
    void samplesThatMatchNothing() throws IOException {
        Path unrelated = new FixtureSamples("task-clock").sample(5000, 1, 1_000_000).sample(5001, 1, 1_000_000)
                .write(directory.resolve("unrelated.jsonl"));
        String err = failsWithOneLine("report", scenario.recording, "--samples", unrelated);
        assertTrue(err.contains("no sample in") && err.contains("matches a stack trace"), err);
    }

    @Test
    void enrichLeavesNoFileWhenNothingMatches() throws IOException {
        Path unrelated = new FixtureSamples("task-clock").sample(5000, 1, 1_000_000)
                .write(directory.resolve("unrelated2.jsonl"));
        Path output = directory.resolve("nothing.jfr");
        failsWithOneLine("enrich", scenario.recording, "--samples", unrelated, "-o", output);
        assertFalse(Files.exists(output));
    }

    @Test
    void sampleFileThatIsNotJson() throws IOException {
        Path garbage = Files.writeString(directory.resolve("garbage.jsonl"), "hello\n");
        String err = failsWithOneLine("report", scenario.recording, "--samples", garbage);
        assertTrue(err.contains("garbage.jsonl line 1"), err);
    }

    @Test
    void corruptLineInTheMiddleIsNamed() throws IOException {
        Path file = directory.resolve("broken.jsonl");
        Files.writeString(file, Files.readString(scenario.samples).replaceFirst("\"userData\":3,", "\"userData\":3,,"));
        String err = failsWithOneLine("report", scenario.recording, "--samples", file);
        assertTrue(err.contains("broken.jsonl line 4: invalid JSON"), err);
    }

    @Test
    void overlongLineIsAnError() throws IOException {
        Path file = directory.resolve("long.jsonl");
        String header = Files.readAllLines(scenario.samples).get(0);
        Files.writeString(file, header + "\n{\"type\":\"sample\",\"pad\":\""
                + "x".repeat(SampleFileReader.MAX_LINE_BYTES)
                + "\"}\n");
        String err = failsWithOneLine("report", scenario.recording, "--samples", file);
        assertTrue(err.contains("long.jsonl line 2: line longer than"), err);
    }

    @Test
    void metricNotInTheSampleFile() {
        String err = failsWithOneLine("report", scenario.recording, "--samples", scenario.samples,
                "--metric", "cycles");
        assertTrue(err.contains("metric 'cycles' is not counted") && err.contains("task-clock, page-faults"), err);
    }

    @Test
    void metricWithoutSamples() {
        String err = failsWithOneLine("report", scenario.recording, "--metric", "page-faults");
        assertTrue(err.contains("needs --samples"), err);
    }

    private static Path datadogSamples() throws IOException {
        return new FixtureJfrSamples().execution(1, 10).method(2, 20).write(directory.resolve("datadog.jfr"));
    }

    @Test
    void jfrSamplesWithoutDatadogEventsListTheEventTypesHeld() throws IOException {
        Path other = new FixtureJfrSamples().other(1, 1000).other(2, 1000).write(directory.resolve("other.jfr"));
        String err = failsWithOneLine("report", scenario.recording, "--samples", other);
        assertTrue(err.contains("other.jfr has no datadog.ExecutionSample or datadog.MethodSample events: name the "
                + "sample events with --sample-event TYPE (its events: test.CpuSample 2)"), err);
    }

    @Test
    void unknownSampleEventType() throws IOException {
        String err = failsWithOneLine("report", scenario.recording, "--samples", datadogSamples(), "--sample-event",
                "datadog.ExecutionSample,jdk.ExecutionSample");
        assertTrue(err.contains("datadog.jfr has no jdk.ExecutionSample events (its events: "
                + "datadog.ExecutionSample 1, datadog.MethodSample 1)"), err);
    }

    @Test
    void missingKeyField() throws IOException {
        String err = failsWithOneLine("flame", scenario.recording, "--samples", datadogSamples(), "--key", "requestId",
                "-o", directory.resolve("never.html"));
        assertTrue(err.contains("datadog.ExecutionSample events in") && err.contains("have no field 'requestId' "
                + "(their fields: startTime, duration, eventThread, stackTrace, state, weight, correlationId, spanId, "
                + "localRootSpanId)"), err);
        assertFalse(Files.exists(directory.resolve("never.html")));
    }

    @Test
    void nonNumericKeyOrWeight() throws IOException {
        String key = failsWithOneLine("report", scenario.recording, "--samples", datadogSamples(), "--key", "state");
        assertTrue(key.contains("field 'state' of datadog.ExecutionSample in") && key.contains("is not a number (it "
                + "is text)"), key);
        String weight = failsWithOneLine("collapsed", scenario.recording, "--samples", datadogSamples(), "--weight",
                "eventThread");
        assertTrue(weight.contains("field 'eventThread' of datadog.ExecutionSample"), weight);
    }

    @Test
    void optionsOfTheOtherSampleFormat() throws IOException {
        String jfrOption = failsWithOneLine("report", scenario.recording, "--samples", scenario.samples, "--weight",
                "weight");
        assertTrue(jfrOption.contains("--weight: for a JFR file as --samples, but") && jfrOption.contains("is a perf "
                + "agent sample file (weigh its samples with --metric)"), jfrOption);
        String perfOption = failsWithOneLine("report", scenario.recording, "--samples", datadogSamples(), "--metric",
                "task-clock");
        assertTrue(perfOption.contains("--metric is for perf agent sample files: weigh the samples of"), perfOption);
        String noSamples = failsWithOneLine("export", scenario.recording, "--sample-event", "datadog.MethodSample",
                "--format", "pprof", "-o", directory.resolve("never.pb.gz"));
        assertTrue(noSamples.contains("--sample-event needs --samples FILE"), noSamples);
    }

    private static Path twoRequesters() throws IOException {
        return new FixtureRecording()
                .requester("libstackreq-perf.so").stack(1, "main", FixtureFrame.jit("perf.Spin", "spin", 1))
                .requester("libjavaProfiler.so").stack(1, "main", FixtureFrame.jit("dd.Work", "work", 1))
                .requester("").stack(2, "main", FixtureFrame.jit("other.Hot", "hot", 1))
                .write(directory.resolve("two-requesters.jfr"));
    }

    @Test
    void severalRequestersAndNothingSaysWhose() throws IOException {
        String list = "(unnamed (--requester ''): 1, libjavaProfiler.so: 1, libstackreq-perf.so: 1)";
        String alone = failsWithOneLine("report", twoRequesters());
        assertTrue(alone.contains("two-requesters.jfr has stack-trace events of 3 requesters " + list
                + ": choose whose to join with --requester NAME"), alone);
        Path other = new FixtureJfrSamples().other(1, 1000).write(directory.resolve("other-samples.jfr"));
        String otherSamples = failsWithOneLine("collapsed", twoRequesters(), "--samples", other, "--sample-event",
                FixtureJfrSamples.OTHER_TYPE, "--key", "requestId");
        assertTrue(otherSamples.contains("3 requesters " + list), otherSamples);
    }

    @Test
    void unknownRequester() throws IOException {
        String err = failsWithOneLine("report", twoRequesters(), "--samples", scenario.samples, "--requester",
                "libnope.so");
        assertTrue(err.contains("no jdk.StackTraceRequest event in") && err.contains("was requested by 'libnope.so' "
                + "(unnamed (--requester ''): 1, libjavaProfiler.so: 1, libstackreq-perf.so: 1)"), err);
    }

    @Test
    void unknownOptionValue() {
        String err = failsWithOneLine("report", scenario.recording, "--by", "module");
        assertTrue(err.contains("--by") && err.contains("stackreq report --help"), err);
    }

    @Test
    void missingAgentsForProfile() {
        String err = failsWithOneLine("profile", "--agent-dir", directory.resolve("no-agents"), "--", "-version");
        assertTrue(err.contains("libstackreq.so not found"), err);
    }

    @Test
    void badIntervalForProfile() {
        String err = failsWithOneLine("profile", "-i", "1 ms", "--", "-version");
        assertTrue(err.contains("--interval"), err);
    }

    @Test
    void cpuTimerTakesNoEvent() {
        String err = failsWithOneLine("profile", "--engine", "cpu-timer", "-e", "page-faults", "--", "-version");
        assertTrue(err.contains("--event is for --engine perf"), err);
    }

    @Test
    void intervalAndPeriodTogether() {
        String err = failsWithOneLine("profile", "-i", "1ms", "-p", "100", "--", "-version");
        assertTrue(err.contains("not both"), err);
    }

    @Test
    void helpWorksEverywhere() {
        for (String command : new String[] {"profile", "report", "flame", "collapsed", "join", "enrich", "export",
            "demo"}) {
            Cli.Result result = Cli.run(command, "--help");
            assertEquals(0, result.exitCode(), command);
            assertTrue(result.out().startsWith("Usage: stackreq " + command), result.out());
        }
    }
}
