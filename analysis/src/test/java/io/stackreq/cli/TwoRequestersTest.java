package io.stackreq.cli;

import static io.stackreq.fixtures.FixtureFrame.interpreted;
import static io.stackreq.fixtures.FixtureFrame.jit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.stackreq.fixtures.Cli;
import io.stackreq.fixtures.FixtureFrame;
import io.stackreq.fixtures.FixtureJfrSamples;
import io.stackreq.fixtures.FixtureRecording;
import io.stackreq.fixtures.FixtureSamples;

/**
 * Two profilers requesting stack traces in one JVM, each counting its userData from 1: Datadog's
 * (userData 1..3, its stacks in {@code dd.Work}) and stackreq's perf agent (1..4, {@code perf.Spin}).
 * Each sample source joins its own requester's events only.
 */
class TwoRequestersTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PERF = "libstackreq-perf.so";
    private static final String DATADOG = "libjavaProfiler.so";
    private static final FixtureFrame MAIN = interpreted("app.Main", "main", 3);

    @TempDir
    static Path directory;
    private static Path recording;
    private static Path perfSamples;
    private static Path datadogSamples;

    @BeforeAll
    static void write() throws IOException {
        FixtureRecording events = new FixtureRecording();
        // Interleaved as the two profilers' requests would be.
        for (long userData = 1; userData <= 4; userData++) {
            events.requester(PERF).stack(userData, "main", jit("perf.Spin", "spin" + userData, 10), MAIN);
            if (userData <= 3) {
                events.requester(DATADOG).stack(userData, "main", jit("dd.Work", "work" + userData, 20), MAIN);
            }
        }
        recording = events.write(directory.resolve("two.jfr"));
        perfSamples = new FixtureSamples("task-clock").sample(1, 1001, 1_000_000).sample(2, 1001, 1_000_000)
                .sample(3, 1001, 1_000_000).sample(4, 1001, 1_000_000).write(directory.resolve("perf.jsonl"));
        datadogSamples = new FixtureJfrSamples().execution(1, 10).execution(2, 10).method(3, 10).execution(0, 10)
                .write(directory.resolve("datadog.jfr"));
    }

    private static List<JsonNode> join(Object... extra) throws IOException {
        Path output = Files.createTempFile(directory, "joined", ".jsonl");
        List<Object> args = new ArrayList<>(List.of("join", recording, "-o", output));
        args.addAll(List.of(extra));
        Cli.Result result = Cli.run(args.toArray());
        assertEquals(0, result.exitCode(), result.err());
        List<JsonNode> joined = new ArrayList<>();
        for (String line : Files.readAllLines(output)) {
            joined.add(JSON.readTree(line));
        }
        return joined;
    }

    /** Every sample matched, once, to the event of its own requester with its own userData. */
    private static void assertEachMatchesItsOwn(List<JsonNode> joined, String ownClass, int samples) {
        assertEquals(samples, joined.size());
        for (int i = 0; i < samples; i++) {
            JsonNode sample = joined.get(i);
            long userData = sample.path("userData").asLong();
            assertEquals(i + 1, userData);
            assertEquals("matched", sample.path("status").asText(), sample.toString());
            assertEquals(ownClass + "." + (ownClass.startsWith("perf") ? "spin" : "work") + userData,
                    sample.path("stack").path(0).path("method").asText(), sample.toString());
        }
    }

    @Test
    void perfSamplesJoinThePerfAgentsEventsOnly() throws IOException {
        assertEachMatchesItsOwn(join("--samples", perfSamples), "perf.Spin", 4);
    }

    @Test
    void datadogSamplesJoinDatadogsEventsOnly() throws IOException {
        assertEachMatchesItsOwn(join("--samples", datadogSamples), "dd.Work", 3);
    }

    @Test
    void theReportSaysWhoseEventsAndHowManyOthersWereLeftOut() throws IOException {
        Cli.Result perf = Cli.run("report", recording, "--samples", perfSamples);
        assertEquals(0, perf.exitCode(), perf.err());
        assertTrue(perf.out().contains("  events   4: 0 with no sample\n"), perf.out());
        assertTrue(perf.out().contains("  requester " + PERF + "; 3 events of other requesters left out ("
                + DATADOG + ": 3)\n"), perf.out());

        Cli.Result json = Cli.run("report", recording, "--samples", datadogSamples, "--format", "json");
        JsonNode report = JSON.readTree(json.out());
        assertEquals(3, report.path("matched").asLong());
        assertEquals(0, report.path("quality").path("duplicateSamples").asLong());
        assertEquals(0, report.path("quality").path("eventsWithoutSample").asLong());
        assertEquals(DATADOG, report.path("scope").path("requester").asText());
        assertEquals(4, report.path("scope").path("otherRequesters").path(PERF).asLong());
        assertEquals(1, report.path("scope").path("undelegated").asLong());
    }

    @Test
    void requesterOptionChoosesTheEventsWithoutSamples() throws IOException {
        List<JsonNode> events = join("--requester", DATADOG);
        assertEquals(3, events.size());
        for (JsonNode event : events) {
            assertTrue(event.path("stack").path(0).path("method").asText().startsWith("dd.Work."), event.toString());
        }
    }

    @Test
    void oneRequesterAloneIsTakenWhateverTheSamples() throws IOException {
        Path perfOnly = new FixtureRecording().requester(PERF).stack(1, "main", jit("perf.Spin", "spin1", 10), MAIN)
                .stack(2, "main", jit("perf.Spin", "spin2", 10), MAIN).write(directory.resolve("one.jfr"));
        Cli.Result result = Cli.run("report", perfOnly, "--samples", datadogSamples);
        assertEquals(0, result.exitCode(), result.err());
        assertTrue(result.out().contains("  requester " + PERF + " (all events are its)\n"), result.out());
    }

    @Test
    void eventsWithoutTheFieldAreAllJoined() throws IOException {
        Path old = new FixtureRecording().stack(1, "main", jit("perf.Spin", "spin1", 10), MAIN)
                .write(directory.resolve("old.jfr"));
        Cli.Result result = Cli.run("report", old);
        assertEquals(0, result.exitCode(), result.err());
        assertTrue(result.out().contains("  requester not named by the events (all joined)\n"), result.out());
    }
}
