package io.stackreq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.stackreq.fixtures.Cli;
import io.stackreq.fixtures.OwnJvmRecording;
import io.stackreq.fixtures.Scenario;
import jdk.jfr.consumer.RecordingFile;

/**
 * {@code report} and {@code flame} of a recording with the JVM's own samples: what they give each
 * method, beside stackreq's shares.
 */
class JfrSharesReportTest {
    @TempDir
    static Path directory;
    static Scenario scenario;
    static Path recording;

    @BeforeAll
    static void record() throws IOException {
        scenario = Scenario.write(directory);
        recording = OwnJvmRecording.withScenario(directory, scenario);
    }

    @Test
    void theReportShowsWhatTheJvmsSamplerGaveBesideStackreqsShares() throws IOException {
        Cli.Result result = Cli.run("report", recording, "--samples", scenario.samples, "--format", "json");
        assertEquals(0, result.exitCode(), result.err());
        JsonNode report = new ObjectMapper().readTree(result.out());
        long jvmSamples = RecordingFile.readAllEvents(recording).stream()
                .filter(event -> event.getEventType().getName().equals("jdk.ExecutionSample")).count();
        assertTrue(jvmSamples > 0, "the JVM sampled itself");
        assertEquals(jvmSamples, report.path("jfrSamples").path("jdk.ExecutionSample").asLong());
        for (JsonNode entry : report.path("entries")) {
            if (entry.path("name").asText().equals(Scenario.THREAD_RUN)) {
                // JUnit runs this test on a thread of its own (its time limit): Thread.run is below
                // this test's loop as well as below the scenario's worker.
                continue;
            }
            // The JVM sampled this test's loop, never the scenario's methods.
            JsonNode jfr = entry.path("jfr").path("jdk.ExecutionSample");
            assertEquals(0.0, jfr.path("selfPct").asDouble(-1), entry.toString());
            assertEquals(0.0, jfr.path("totalPct").asDouble(-1), entry.toString());
        }
        Cli.Result text = Cli.run("report", recording, "--samples", scenario.samples);
        assertTrue(text.out().contains("JFR        " + jvmSamples + " jdk.ExecutionSample"), text.out());
        assertTrue(text.out().lines().anyMatch(line -> line.contains("JFR self% JFR total%  method")), text.out());
        assertTrue(text.out().lines().anyMatch(line -> line.matches(" +37\\.5% .* 0\\.0% +0\\.0%  " + Scenario.A)),
                text.out());
    }

    @Test
    void theFlamePageSaysWhatJfrAloneSaidBesideItsOwnShares() throws IOException {
        Path page = directory.resolve("flame.html");
        Cli.Result result = Cli.run("flame", recording, "--samples", scenario.samples, "-o", page);
        assertEquals(0, result.exitCode(), result.err());
        long jvmSamples = RecordingFile.readAllEvents(recording).stream()
                .filter(event -> event.getEventType().getName().equals("jdk.ExecutionSample")).count();
        String html = java.nio.file.Files.readString(page);
        // The JVM sampled this test's loop, which stackreq's samples (the scenario's) never hold.
        assertTrue(html.contains("\"jfr\":\"JFR alone, by top frame (its " + String.format("%,d", jvmSamples)
                + " jdk.ExecutionSample): io.stackreq.fixtures.OwnJvmRecording.write "), html.substring(0, 2000));
        assertTrue(html.contains("(stackreq 0.0%)"), "stackreq's share of the method JFR put on top");
        Cli.Result without = Cli.run("flame", scenario.recording, "--samples", scenario.samples, "-o",
                directory.resolve("plain.html"));
        assertEquals(0, without.exitCode(), without.err());
        assertTrue(!java.nio.file.Files.readString(directory.resolve("plain.html")).contains("\"jfr\":"),
                "no contrast without JFR samples");
    }

    @Test
    void theSamplesMetricWeighsEachSampleOnce() throws IOException {
        Cli.Result result = Cli.run("report", scenario.recording, "--samples", scenario.samples, "--metric", "samples",
                "--format", "json");
        assertEquals(0, result.exitCode(), result.err());
        JsonNode report = new ObjectMapper().readTree(result.out());
        assertEquals(14, report.path("totalWeight").asLong());
        JsonNode methodB = null;
        for (JsonNode entry : report.path("entries")) {
            if (entry.path("name").asText().equals(Scenario.B)) {
                methodB = entry;
            }
        }
        // methodB: 3 of 14 samples on top (two of 2 ms, one of 1 ms: 5 of 16 ms by task-clock).
        assertEquals(3, methodB.path("self").asLong(), report.toString());
        assertEquals(21.429, methodB.path("selfPct").asDouble(), 1e-9);
        assertEquals("samples", report.path("metric").asText());
    }
}
