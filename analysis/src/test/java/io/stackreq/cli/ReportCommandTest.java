package io.stackreq.cli;

import static io.stackreq.fixtures.Scenario.A;
import static io.stackreq.fixtures.Scenario.B;
import static io.stackreq.fixtures.Scenario.HASH;
import static io.stackreq.fixtures.Scenario.MAIN;
import static io.stackreq.fixtures.Scenario.RECURSIVE;
import static io.stackreq.fixtures.Scenario.THREAD_RUN;
import static io.stackreq.fixtures.Scenario.WORKER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.stackreq.fixtures.Cli;
import io.stackreq.fixtures.Scenario;
import io.stackreq.fixtures.ScenarioFixture;

class ReportCommandTest extends ScenarioFixture {
    private static final ObjectMapper JSON = new ObjectMapper();


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

    private static JsonNode entry(JsonNode entries, String name, int line) {
        for (JsonNode entry : entries) {
            if (entry.path("name").asText().equals(name) && entry.path("line").asInt() == line) {
                return entry;
            }
        }
        throw new AssertionError(name + ":" + line + " not among " + entries);
    }

    @Test
    void jsonWeighsByTheLeadersDeltasWithSelfAndTotal() throws IOException {
        JsonNode report = jsonReport("--samples", scenario.samples);
        assertEquals("task-clock", report.path("metric").asText());
        assertEquals("ns", report.path("unit").asText());
        assertEquals(16_000_000, report.path("totalWeight").asLong());
        assertEquals(14, report.path("matched").asLong());
        assertEquals(2, report.path("unmatched").asLong());

        JsonNode entries = report.path("entries");
        assertEquals(6_000_000, entry(entries, A).path("self").asLong());
        assertEquals(37.5, entry(entries, A).path("selfPct").asDouble(), 1e-9);
        assertEquals(8_000_000, entry(entries, A).path("total").asLong());
        assertEquals(50.0, entry(entries, A).path("totalPct").asDouble(), 1e-9);
        assertEquals(5_000_000, entry(entries, B).path("self").asLong());
        assertEquals(31.25, entry(entries, B).path("selfPct").asDouble(), 1e-9);
        assertEquals(2_000_000, entry(entries, HASH).path("self").asLong());
        assertEquals(2_000_000, entry(entries, WORKER).path("self").asLong());
        assertEquals(0, entry(entries, MAIN).path("self").asLong());
        assertEquals(14_000_000, entry(entries, MAIN).path("total").asLong());
        assertEquals(87.5, entry(entries, MAIN).path("totalPct").asDouble(), 1e-9);
        assertEquals(2_000_000, entry(entries, THREAD_RUN).path("total").asLong());
        // Rec.f is three frames deep in one stack: its total counts that sample once.
        assertEquals(1_000_000, entry(entries, RECURSIVE).path("self").asLong());
        assertEquals(1_000_000, entry(entries, RECURSIVE).path("total").asLong());
        assertTrue(entry(entries, A).path("line").isMissingNode(), "no line for --by method");
        // Sorted by self weight, heaviest first.
        assertEquals(A, entries.get(0).path("name").asText());
        assertEquals(B, entries.get(1).path("name").asText());
    }

    @Test
    void jsonReportsTheJoinQuality() throws IOException {
        JsonNode quality = jsonReport("--samples", scenario.samples).path("quality");
        assertEquals(18, quality.path("samples").asLong());
        assertEquals(14, quality.path("matched").asLong());
        assertEquals(87.5, quality.path("matchedPct").asDouble(), 1e-9);
        assertEquals(1, quality.path("noEvent").asLong());
        assertEquals(1, quality.path("failedEvent").asLong());
        assertEquals(2, quality.path("rejected").asLong());
        assertEquals(1, quality.path("rejectedByError").path("112 (WRONG_PHASE)").asLong());
        assertEquals(1, quality.path("rejectedByError").path("98 (NOT_AVAILABLE)").asLong());
        assertEquals(16, quality.path("events").asLong());
        assertEquals(1, quality.path("eventsWithoutSample").asLong());
        assertEquals(1, quality.path("biased").asLong());
        assertEquals(100.0 / 14, quality.path("biasedPct").asDouble(), 1e-3);
        assertEquals(1, quality.path("droppedInJvm").asLong(), "the last (cumulative) statistics value");
        assertEquals(3, quality.path("agentLost").asLong());
        assertTrue(quality.path("sampleFileComplete").asBoolean());
        assertEquals(20, quality.path("statistics").path("requested").asLong());
    }

    @Test
    void metricOptionWeighsByAGroupMember() throws IOException {
        JsonNode report = jsonReport("--samples", scenario.samples, "--metric", "page-faults");
        assertEquals("page-faults", report.path("metric").asText());
        assertEquals("count", report.path("unit").asText());
        assertEquals(12, report.path("totalWeight").asLong());
        JsonNode entries = report.path("entries");
        assertEquals(HASH, entries.get(0).path("name").asText());
        assertEquals(10, entry(entries, HASH).path("self").asLong());
        assertEquals(83.333, entry(entries, HASH).path("selfPct").asDouble(), 1e-9);
        assertEquals(2, entry(entries, WORKER).path("self").asLong());
        assertEquals(0, entry(entries, A).path("self").asLong());
        assertEquals(10, entry(entries, A).path("total").asLong());
    }

    @Test
    void byLineSeparatesLinesOfOneMethod() throws IOException {
        JsonNode entries = jsonReport("--samples", scenario.samples, "--by", "line").path("entries");
        assertEquals(6_000_000, entry(entries, A, 30).path("self").asLong());
        assertEquals(0, entry(entries, A, 31).path("self").asLong());
        assertEquals(2_000_000, entry(entries, A, 31).path("total").asLong());
        assertEquals(8_000_000, entry(entries, MAIN, 20).path("total").asLong());
        assertEquals(5_000_000, entry(entries, MAIN, 21).path("total").asLong());
        assertEquals(1_000_000, entry(entries, RECURSIVE, 4).path("total").asLong());
    }

    @Test
    void byStackListsEveryDistinctStackTopFirst() throws IOException {
        JsonNode entries = jsonReport("--samples", scenario.samples, "--by", "stack").path("entries");
        assertEquals(5, entries.size());
        JsonNode first = entries.get(0);
        assertEquals(A, first.path("name").asText());
        assertEquals(6_000_000, first.path("self").asLong());
        assertEquals(List.of(A + ":30", MAIN + ":20"), JSON.convertValue(first.path("stack"), List.class));
        JsonNode recursive = entry(entries, RECURSIVE);
        assertEquals(List.of(RECURSIVE + ":3", RECURSIVE + ":4", RECURSIVE + ":4", MAIN + ":22"),
                JSON.convertValue(recursive.path("stack"), List.class));
    }

    @Test
    void threadsOptionAddsOneTablePerThread() throws IOException {
        JsonNode report = jsonReport("--samples", scenario.samples, "--threads");
        JsonNode threads = report.path("threads");
        assertEquals(2, threads.size());
        assertEquals("main", threads.get(0).path("thread").asText());
        assertEquals(14_000_000, threads.get(0).path("totalWeight").asLong());
        assertEquals(87.5, threads.get(0).path("totalPct").asDouble(), 1e-9);
        assertEquals("worker", threads.get(1).path("thread").asText());
        assertEquals(2_000_000, entry(threads.get(1).path("entries"), WORKER).path("self").asLong());
        assertEquals(12.5, entry(threads.get(1).path("entries"), WORKER).path("selfPct").asDouble(), 1e-9);
        for (JsonNode entry : threads.get(1).path("entries")) {
            assertFalse(entry.path("name").asText().startsWith("app.TwoPhase"), "main's frames in worker's table");
        }
    }

    /**
     * The thread list: samples and OS ids from the sample file. The fixture's writer has no Java
     * thread id in its thread type, so the kind is unknown (real recordings, where JVM-internal
     * threads have Java id 0: ProfileAllThreadsTest in tests/).
     */
    @Test
    void threadsOptionListsTheThreadsWithTheirSamplesAndOsIds() throws IOException {
        JsonNode threads = jsonReport("--samples", scenario.samples, "--threads").path("threads");
        assertEquals("main", threads.get(0).path("thread").asText());
        assertEquals(12, threads.get(0).path("samples").asLong(), "samples 1-10, 14 and 16 are main's, matched");
        assertEquals(1, threads.get(0).path("osThreadIds").size());
        assertEquals(Scenario.MAIN_TID, threads.get(0).path("osThreadIds").get(0).asLong());
        assertEquals("unknown", threads.get(0).path("kind").asText());
        assertEquals(Scenario.WORKER_TID, threads.get(1).path("osThreadIds").get(0).asLong());
        assertEquals(2, threads.get(1).path("samples").asLong());

        JsonNode withoutSamples = jsonReport("--threads").path("threads");
        assertEquals(0, withoutSamples.get(0).path("osThreadIds").size(), "no OS id without a sample file");
        assertEquals(13, withoutSamples.get(0).path("samples").asLong(), "main's events 1-10 and 14-16 have a stack");

        Cli.Result text = Cli.run("report", scenario.recording, "--samples", scenario.samples, "--threads");
        assertEquals(0, text.exitCode(), text.err());
        String row = text.out().lines().filter(line -> line.endsWith("  worker")).findFirst().orElseThrow();
        assertTrue(row.matches("\\s+12\\.5%\\s+2\\.000 ms\\s+2 1020\\s+unknown\\s+worker"), row);
    }

    @Test
    void withoutSamplesEveryEventWeighsOne() throws IOException {
        JsonNode report = jsonReport();
        assertEquals("events", report.path("metric").asText());
        assertNull(report.get("samplesFile"));
        assertEquals(15, report.path("totalWeight").asLong());
        assertEquals(15, report.path("matched").asLong());
        assertEquals(1, report.path("unmatched").asLong(), "the failed event");
        assertEquals(7, entry(report.path("entries"), A).path("self").asLong());
    }

    @Test
    void sampleFileOfAKilledJvmIsReadUpToItsCutOffLine() throws IOException {
        Path killed = directory.resolve("killed.jsonl");
        List<String> lines = java.nio.file.Files.readAllLines(scenario.samples);
        // No end line, and the last sample cut in the middle, as when the JVM is killed mid-write.
        String cut = lines.get(lines.size() - 2).substring(0, 20);
        java.nio.file.Files.writeString(killed, String.join("\n", lines.subList(0, lines.size() - 2)) + "\n" + cut);
        JsonNode quality = jsonReport("--samples", killed).path("quality");
        assertEquals(17, quality.path("samples").asLong());
        assertFalse(quality.path("sampleFileComplete").asBoolean());
        assertTrue(quality.path("sampleFileCutOff").asBoolean());
        assertEquals(-1, quality.path("agentLost").asLong());
    }

    @Test
    void topLimitsTheRows() throws IOException {
        Cli.Result result = Cli.run("report", scenario.recording, "--samples", scenario.samples, "--format", "json",
                "--top", "2");
        assertEquals(2, JSON.readTree(result.out()).path("entries").size());
    }

    @Test
    void textReportShowsTableAndJoinQuality() {
        Cli.Result result = Cli.run("report", scenario.recording, "--samples", scenario.samples);
        assertEquals(0, result.exitCode(), result.err());
        String text = result.out();
        assertTrue(text.contains("Metric     task-clock: 16.000 ms in 14 matched samples"), text);
        String rowA = text.lines().filter(line -> line.endsWith("  " + A)).findFirst().orElseThrow();
        assertTrue(rowA.matches("\\s+37\\.5%\\s+6\\.000 ms\\s+50\\.0%\\s+8\\.000 ms\\s+"
                + A.replace(".", "\\.")), rowA);
        assertTrue(text.contains("18: 14 matched (87.5% of accepted), 1 with no event, 1 whose event has no stack, "
                + "2 rejected (error 98 (NOT_AVAILABLE): 1, error 112 (WRONG_PHASE): 1)"), text);
        assertTrue(text.contains("16: 1 with no sample"), text);
        assertTrue(text.contains("7.1% of attributed stacks"), text);
        assertTrue(text.contains("1 accepted requests lost in the JVM; 3 samples lost by the perf agent"), text);
    }

    @Test
    void textReportByStackAndThreads() {
        Cli.Result result = Cli.run("report", scenario.recording, "--samples", scenario.samples, "--by", "stack",
                "--threads");
        assertEquals(0, result.exitCode(), result.err());
        assertTrue(result.out().contains("    at " + MAIN + ":20"), result.out());
        assertTrue(result.out().contains("Thread worker: 12.5% (2.000 ms)"), result.out());
        assertNotNull(result.out());
    }
}
