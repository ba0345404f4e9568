package io.stackreq.e2e.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.OnEachJdk;
import org.junit.jupiter.api.Tag;

/**
 * Issue 3, acceptance 2: {@code profile -e task-clock+page-faults} of PageToucher gives every
 * sample the deltas of both counters, and {@code report --metric page-faults} puts most faults in
 * touchFreshMemory (its total: the faults happen in the JDK's zeroing of the new direct buffer,
 * which it calls), while the time-weighted report shows computeOnly's share too.
 */
@Tag("alone")
class EventGroupTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @OnEachJdk
    void everySampleHasTheDeltasOfBothCounters(Jdk jdk) throws IOException {
        Profiles.Profiled run = Profiles.pageFaults(jdk);
        List<String> lines = Files.readAllLines(run.file("samples.jsonl"));
        JsonNode start = JSON.readTree(lines.get(0));
        assertEquals("start", start.path("type").asText(), () -> "first line: " + lines.get(0));
        assertEquals(List.of("task-clock", "page-faults"), texts(start.path("events")), () -> "start: " + start);
        long samples = 0;
        long faults = 0;
        long clock = 0;
        for (int i = 1; i < lines.size(); i++) {
            JsonNode line = JSON.readTree(lines.get(i));
            if (!line.path("type").asText().equals("sample")) {
                continue;
            }
            samples++;
            JsonNode deltas = line.path("deltas");
            String where = "line " + (i + 1) + ": " + lines.get(i);
            assertEquals(List.of("page-faults", "task-clock"), sortedNames(deltas), where);
            assertTrue(deltas.path("task-clock").isIntegralNumber() && deltas.path("task-clock").asLong() > 0, where);
            assertTrue(deltas.path("page-faults").isIntegralNumber()
                    && deltas.path("page-faults").asLong() >= 0, where);
            clock += deltas.path("task-clock").asLong();
            faults += deltas.path("page-faults").asLong();
        }
        System.out.printf("%s PageToucher: %d samples, task-clock %d ns, page-faults %d%n", jdk,
                samples, clock, faults);
        assertTrue(samples >= 500, "only " + samples + " samples in " + run.file("samples.jsonl"));
        // PageToucher touches thousands of fresh pages a second: the member counted them.
        assertTrue(faults >= 10_000, "page-faults deltas add up to only " + faults);
    }

    @OnEachJdk
    void pageFaultMetricAttributesFaultsToTheMethodThatTouchesFreshMemory(Jdk jdk) {
        Profiles.Profiled run = Profiles.pageFaults(jdk);
        JsonNode byFaults = run.report("--metric", "page-faults", "--top", "0");
        JsonNode byTime = run.report("--top", "0");
        String context = jdk + " by page-faults: " + Profiles.entryNames(byFaults) + "\nby task-clock: "
                + Profiles.entryNames(byTime);
        assertEquals("page-faults", byFaults.path("metric").asText(), context);
        assertEquals("count", byFaults.path("unit").asText(), context);
        assertEquals("task-clock", byTime.path("metric").asText(), context);
        assertTrue(byFaults.path("totalWeight").asLong() > 0, context);

        double touchFaults = Profiles.entry(byFaults, Profiles.TOUCH).path("totalPct").asDouble();
        double computeFaults = totalPctOrZero(byFaults, Profiles.COMPUTE);
        double computeTime = Profiles.entry(byTime, Profiles.COMPUTE).path("totalPct").asDouble();
        System.out.printf("%s PageToucher: touchFreshMemory %.3f%% of faults; computeOnly %.3f%% of faults, "
                + "%.3f%% of time%n", jdk, touchFaults, computeFaults, computeTime);
        assertTrue(touchFaults >= 80, () -> "touchFreshMemory has " + touchFaults + "% of the faults; " + context);
        // The metric changes the attribution: computeOnly burns a good share of the CPU but
        // touches no memory (its faults are those counted just before its first sample).
        assertTrue(computeTime >= 20, () -> "computeOnly has only " + computeTime + "% of the time; " + context);
        assertTrue(computeFaults < computeTime / 2,
                () -> "computeOnly has " + computeFaults + "% of faults vs " + computeTime + "% of time; " + context);
    }

    private static double totalPctOrZero(JsonNode report, String method) {
        for (JsonNode entry : report.path("entries")) {
            if (method.equals(entry.path("name").asText())) {
                return entry.path("totalPct").asDouble();
            }
        }
        return 0;
    }

    private static List<String> texts(JsonNode array) {
        List<String> values = new ArrayList<>();
        array.forEach(value -> values.add(value.asText()));
        return values;
    }

    private static List<String> sortedNames(JsonNode object) {
        List<String> names = new ArrayList<>();
        object.fieldNames().forEachRemaining(names::add);
        names.sort(null);
        return names;
    }
}
