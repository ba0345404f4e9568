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
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.stackreq.fixtures.Cli;
import io.stackreq.fixtures.FlamePage;
import io.stackreq.fixtures.Scenario;
import io.stackreq.fixtures.ScenarioFixture;

/** collapsed, join and flame on the shared scenario. */
class OutputCommandsTest extends ScenarioFixture {
    private static final ObjectMapper JSON = new ObjectMapper();


    @Test
    void collapsedWritesOneLinePerDistinctStackRootFirst() throws IOException {
        Path output = directory.resolve("stacks.collapsed");
        Cli.Result result = Cli.run("collapsed", scenario.recording, "--samples", scenario.samples, "-o", output);
        assertEquals(0, result.exitCode(), result.err());
        assertEquals(Set.of(
                MAIN + ";" + A + " 6000000",
                MAIN + ";" + A + ";" + HASH + " 2000000",
                MAIN + ";" + B + " 5000000",
                THREAD_RUN + ";" + WORKER + " 2000000",
                MAIN + ";" + RECURSIVE + ";" + RECURSIVE + ";" + RECURSIVE + " 1000000"),
                Set.copyOf(Files.readAllLines(output)));
    }

    @Test
    void collapsedWithThreadsAndLinesToStandardOutput() {
        Cli.Result result = Cli.run("collapsed", scenario.recording, "--samples", scenario.samples, "--threads",
                "--lines", "--metric", "page-faults");
        assertEquals(0, result.exitCode(), result.err());
        List<String> lines = result.out().lines().collect(Collectors.toList());
        assertTrue(lines.contains("main;" + MAIN + ":20;" + A + ":31;" + HASH + ":10 10"), result.out());
        assertTrue(lines.contains("worker;" + THREAD_RUN + ":833;" + WORKER + ":5 2"), result.out());
        // Stacks with no page faults weigh 0 and are left out, like flamegraph.pl would.
        assertFalse(result.out().contains(B), result.out());
    }

    @Test
    void joinWritesEverySampleWithItsStatusAndStack() throws IOException {
        Path output = directory.resolve("joined.jsonl");
        Cli.Result result = Cli.run("join", scenario.recording, "--samples", scenario.samples, "-o", output);
        assertEquals(0, result.exitCode(), result.err());
        List<JsonNode> lines = new ArrayList<>();
        for (String line : Files.readAllLines(output)) {
            lines.add(JSON.readTree(line));
        }
        assertEquals(18, lines.size(), "one line per sample");
        Map<Long, JsonNode> byUserData = new HashMap<>();
        Map<String, Integer> statuses = new HashMap<>();
        for (JsonNode line : lines) {
            byUserData.put(line.path("userData").asLong(), line);
            statuses.merge(line.path("status").asText(), 1, Integer::sum);
        }
        assertEquals(Map.of("matched", 14, "no_event", 1, "failed_event", 1, "rejected", 2), statuses);

        JsonNode hash = byUserData.get(7L);
        assertEquals("matched", hash.path("status").asText());
        assertEquals(Scenario.MAIN_TID, hash.path("tid").asLong());
        assertEquals("main", hash.path("thread").asText());
        assertEquals(5, hash.path("deltas").path("page-faults").asLong());
        assertEquals(1_000_000, hash.path("weight").asLong());
        JsonNode stack = hash.path("stack");
        assertEquals(3, stack.size());
        assertEquals(HASH, stack.get(0).path("method").asText());
        assertEquals(10, stack.get(0).path("line").asInt());
        assertEquals("Inlined", stack.get(0).path("type").asText());
        assertEquals(A, stack.get(1).path("method").asText());
        assertEquals("JIT compiled", stack.get(1).path("type").asText());
        assertEquals(MAIN, stack.get(2).path("method").asText());
        assertEquals("Interpreted", stack.get(2).path("type").asText());

        assertTrue(byUserData.get(100L).path("stack").isNull());
        assertEquals(112, byUserData.get(101L).path("error").asInt());
        assertTrue(byUserData.get(14L).path("biased").asBoolean());
        assertTrue(byUserData.get(13L).path("failed").asBoolean());
    }

    @Test
    void joinWithoutSamplesWritesOneLinePerEvent() throws IOException {
        Path output = directory.resolve("events.jsonl");
        assertEquals(0, Cli.run("join", scenario.recording, "-o", output).exitCode());
        List<String> lines = Files.readAllLines(output);
        assertEquals(16, lines.size());
        assertEquals(15, lines.stream().filter(line -> line.contains("\"status\":\"matched\"")).count());
    }

    @Test
    void flameGraphIsSelfContainedAndHoldsTheWeightedTree() throws IOException {
        Path output = directory.resolve("flame.html");
        Cli.Result result = Cli.run("flame", scenario.recording, "--samples", scenario.samples, "-o", output);
        assertEquals(0, result.exitCode(), result.err());
        String html = Files.readString(output);
        assertFalse(html.contains("http://") || html.contains("https://"), "must not load anything from a network");
        assertFalse(html.contains("<script src") || html.contains("<link"), "all scripts and styles inline");
        assertTrue(html.contains("id=\"search\""));

        FlamePage page = FlamePage.read(output);
        assertEquals("task-clock", page.metric());
        assertEquals("ns", page.unit());
        FlamePage.Node root = page.root();
        assertEquals(16_000_000, root.total());
        FlamePage.Node main = root.child(MAIN);
        assertEquals(14_000_000, main.total());
        FlamePage.Node methodA = main.child(A);
        assertEquals(8_000_000, methodA.total());
        assertEquals(6_000_000, methodA.self());
        assertEquals(2_000_000, methodA.child(HASH).total());
        assertEquals("java", methodA.kind());
        assertEquals("label", root.kind());
    }

    @Test
    void flameGraphWithThreadsHasThreadLabelsUnderTheRoot() throws IOException {
        Path output = directory.resolve("flame-threads.html");
        assertEquals(0, Cli.run("flame", scenario.recording, "--samples", scenario.samples, "--threads", "-o", output)
                .exitCode());
        FlamePage.Node worker = FlamePage.read(output).root().child("worker");
        assertEquals("label", worker.kind());
        assertEquals(2_000_000, worker.total());
        assertEquals(0, worker.self());
    }
}
