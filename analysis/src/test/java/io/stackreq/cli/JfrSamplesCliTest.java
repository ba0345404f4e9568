package io.stackreq.cli;

import static io.stackreq.fixtures.Scenario.A;
import static io.stackreq.fixtures.Scenario.MAIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.stackreq.export.pprof.Profile;
import io.stackreq.fixtures.Cli;
import io.stackreq.fixtures.FixtureJfrSamples;
import io.stackreq.fixtures.FixtureSamples;
import io.stackreq.fixtures.ProfileWeights;
import io.stackreq.fixtures.Scenario;
import io.stackreq.fixtures.ScenarioFixture;

/**
 * A JFR file as {@code --samples}: Datadog's sample events, their correlationId as the userData,
 * joined with the scenario's recording as the perf agent's sample file is.
 */
class JfrSamplesCliTest extends ScenarioFixture {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** userData and weight of every sample: the scenario's accepted ones, userData 3 twice, 100 without an event. */
    private static final long[][] SAMPLES = {{1, 1000}, {2, 1000}, {3, 1000}, {3, 1000}, {4, 1000}, {5, 1000},
        {6, 1000}, {7, 1000}, {8, 1000}, {9, 2000}, {10, 2000}, {11, 1000}, {12, 1000}, {13, 1000}, {14, 1000},
        {16, 1000}, {100, 1000}};
    private static final int UNDELEGATED = 3;

    private static Path perfSamples;
    private static Path datadogSamples;

    @BeforeAll
    static void writeSamples() throws IOException {
        FixtureSamples perf = new FixtureSamples("task-clock");
        FixtureJfrSamples datadog = new FixtureJfrSamples();
        for (int i = 0; i < SAMPLES.length; i++) {
            perf.sample(SAMPLES[i][0], Scenario.MAIN_TID, SAMPLES[i][1]);
            // CPU and wall-clock samples both, as Datadog's profiler writes them.
            if (i % 2 == 0) {
                datadog.execution(SAMPLES[i][0], SAMPLES[i][1]);
            } else {
                datadog.method(SAMPLES[i][0], SAMPLES[i][1]);
            }
        }
        for (int i = 0; i < UNDELEGATED; i++) {
            datadog.execution(0, 50_000);
        }
        perfSamples = perf.write(directory.resolve("perf.jsonl"));
        datadogSamples = datadog.write(directory.resolve("datadog.jfr"));
    }

    private static JsonNode jsonReport(Object... extra) throws IOException {
        List<Object> args = new ArrayList<>(List.of("report", scenario.recording, "--format", "json", "--top", "0"));
        args.addAll(List.of(extra));
        Cli.Result result = Cli.run(args.toArray());
        assertEquals(0, result.exitCode(), result.err());
        return JSON.readTree(result.out());
    }

    private static JsonNode entry(JsonNode entries, String name) {
        for (JsonNode entry : entries) {
            if (entry.path("name").asText().equals(name)) {
                return entry;
            }
        }
        throw new AssertionError(name + " not among " + entries);
    }

    @Test
    void datadogSamplesWeighedByTheirWeightGiveThePerfSampleFilesShares() throws IOException {
        JsonNode perf = jsonReport("--samples", perfSamples);
        JsonNode jfr = jsonReport("--samples", datadogSamples, "--weight", "weight");
        assertEquals("weight", jfr.path("metric").asText());
        assertEquals("count", jfr.path("unit").asText());
        assertEquals(perf.path("totalWeight").asLong(), jfr.path("totalWeight").asLong());
        assertEquals(perf.path("entries"), jfr.path("entries"));
        for (String field : List.of("samples", "matched", "matchedPct", "noEvent", "failedEvent", "duplicateSamples",
                "events", "eventsWithoutSample", "duplicateEvents", "biased")) {
            assertEquals(perf.path("quality").path(field), jfr.path("quality").path(field), field);
        }
        assertEquals(1, jfr.path("quality").path("duplicateSamples").asLong());
        assertEquals(1, jfr.path("quality").path("noEvent").asLong());
        assertEquals("jfr", jfr.path("scope").path("samplesFormat").asText());
        assertEquals(UNDELEGATED, jfr.path("scope").path("undelegated").asLong());
        assertEquals(0, perf.path("scope").path("undelegated").asLong());
    }

    @Test
    void collapsedStacksAreThePerfSampleFilesToo() {
        Cli.Result perf = Cli.run("collapsed", scenario.recording, "--samples", perfSamples);
        Cli.Result jfr = Cli.run("collapsed", scenario.recording, "--samples", datadogSamples,
                "--sample-event", "datadog.ExecutionSample,datadog.MethodSample", "--key", "correlationId",
                "--weight", "weight");
        assertEquals(0, jfr.exitCode(), jfr.err());
        assertEquals(perf.out().lines().sorted().toList(), jfr.out().lines().sorted().toList());
    }

    @Test
    void countedByDefaultAsSamples() throws IOException {
        JsonNode report = jsonReport("--samples", datadogSamples);
        assertEquals("samples", report.path("metric").asText());
        assertEquals("count", report.path("unit").asText());
        // 14 matched samples, one each: methodA's 6 of them, main under all but the worker's 2.
        assertEquals(14, report.path("totalWeight").asLong());
        assertEquals(6, entry(report.path("entries"), A).path("self").asLong());
        assertEquals(100.0 * 6 / 14, entry(report.path("entries"), A).path("selfPct").asDouble(), 1e-3);
        assertEquals(12, entry(report.path("entries"), MAIN).path("total").asLong());
    }

    @Test
    void oneSampleTypeAloneWhenNamed() throws IOException {
        JsonNode report = jsonReport("--samples", datadogSamples, "--sample-event", "datadog.MethodSample");
        // The odd positions of SAMPLES: 2, 3, 5, 7, 9, 11, 13, 16; 13 has a failed event.
        assertEquals(8, report.path("quality").path("samples").asLong());
        assertEquals(7, report.path("matched").asLong());
        assertEquals(0, report.path("scope").path("undelegated").asLong());
    }

    @Test
    void aDurationFieldWeighsInNanoseconds() throws IOException {
        Path other = new FixtureJfrSamples().other(1, 3_000_000).other(9, 1_000_000)
                .write(directory.resolve("other.jfr"));
        JsonNode report = jsonReport("--samples", other, "--sample-event", FixtureJfrSamples.OTHER_TYPE, "--key",
                "requestId", "--weight", "cpuTime");
        assertEquals("cpuTime", report.path("metric").asText());
        assertEquals("ns", report.path("unit").asText());
        assertEquals(4_000_000, report.path("totalWeight").asLong());
        assertEquals(75.0, entry(report.path("entries"), A).path("selfPct").asDouble(), 1e-9);
    }

    @Test
    void textReportCountsTheUndelegatedSamples() {
        Cli.Result result = Cli.run("report", scenario.recording, "--samples", datadogSamples);
        assertEquals(0, result.exitCode(), result.err());
        assertTrue(result.out().contains("Metric     samples: 14 in 14 matched samples"), result.out());
        assertTrue(result.out().contains("17: 14 matched (87.5% of accepted), 1 with no event, 1 whose event has no "
                + "stack, 0 rejected, 1 repeating a userData; 3 more not delegated (userData 0) and left out"),
                result.out());
        assertFalse(result.out().contains("perf agent"), result.out());
    }

    @Test
    void joinWritesTheSampleEventTypeAndNoOsThreadId() throws IOException {
        Path output = directory.resolve("joined.jsonl");
        Cli.Result result = Cli.run("join", scenario.recording, "--samples", datadogSamples, "-o", output);
        assertEquals(0, result.exitCode(), result.err());
        List<String> lines = Files.readAllLines(output);
        assertEquals(SAMPLES.length, lines.size());
        JsonNode first = JSON.readTree(lines.get(0));
        assertEquals("matched", first.path("status").asText());
        assertEquals(1, first.path("userData").asLong());
        assertEquals("datadog.ExecutionSample", first.path("event").asText());
        assertEquals(1, first.path("deltas").path("samples").asLong());
        assertTrue(first.path("tid").isMissingNode(), first.toString());
        assertEquals("datadog.MethodSample", JSON.readTree(lines.get(1)).path("event").asText());
    }

    @Test
    void flameEnrichAndExportTakeJfrSamples() throws IOException {
        Path flame = directory.resolve("jfr-flame.html");
        assertEquals(0, Cli.run("flame", scenario.recording, "--samples", datadogSamples, "-o", flame).exitCode());
        assertTrue(Files.readString(flame).contains("samples"));
        Path enriched = directory.resolve("jfr-profile.jfr");
        Cli.Result enrich = Cli.run("enrich", scenario.recording, "--samples", datadogSamples, "--weight", "weight",
                "-o", enriched);
        assertEquals(0, enrich.exitCode(), enrich.err());
        assertTrue(enrich.err().contains("14 samples, each a jdk.ExecutionSample and a stackreq.PerfSample event"), enrich.err());
        assertEquals(List.of("samples/count"), sampleTypes(exportPprof("jfr.pb.gz")));
        assertEquals(List.of("weight/count", "samples/count"),
                sampleTypes(exportPprof("jfr-weight.pb.gz", "--weight", "weight")));
    }

    private static Path exportPprof(String name, Object... options) {
        Path output = directory.resolve(name);
        List<Object> args = new ArrayList<>(List.of("export", scenario.recording, "--samples", datadogSamples,
                "--format", "pprof", "-o", output));
        args.addAll(List.of(options));
        Cli.Result export = Cli.run(args.toArray());
        assertEquals(0, export.exitCode(), export.err());
        assertTrue(export.err().contains("14 samples"), export.err());
        return output;
    }

    /** Counted samples are pprof's samples/count, once; a weight is a sample type of its own. */
    private static List<String> sampleTypes(Path pprof) throws IOException {
        Profile profile = ProfileWeights.readPprof(pprof);
        return profile.getSampleTypeList().stream().map(type -> profile.getStringTable((int) type.getType()) + "/"
                + profile.getStringTable((int) type.getUnit())).toList();
    }
}
