package io.stackreq.e2e.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.stackreq.fixtures.ProfileWeights;
import io.stackreq.output.EnrichedRecordingWriter;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JfrPrint;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEachJdk;
import org.junit.jupiter.api.Tag;

/**
 * Issue 14, acceptance 2-4 and 7: the {@code profile.pb.gz} and {@code profile.otlp.pb} of
 * {@code profile -e task-clock+page-faults --format pprof --format otlp}, read by Go's own pprof
 * ({@code go tool pprof -top} and {@code -raw}, Debian's golang-go, which tests/run installs) and by
 * opentelemetry-proto's classes, weigh every function as {@code report} does, for both counters, to
 * the unit; its {@code profile.jfr} reads with the JDK's own reader, stacks included.
 */
@Tag("alone")
class FleetFormatsTest {
    private static final List<String> METRICS = List.of("task-clock", "page-faults");
    private static final Path GO = Path.of("/usr/bin/go");
    /** A row of {@code -top}: flat, flat%, sum%, cum, cum%, name; -unit=ns prints nanoseconds unscaled. */
    private static final Pattern TOP_ROW =
            Pattern.compile("^\\s*(\\d+)(?:ns)?\\s+\\S+%\\s+\\S+%\\s+(\\d+)(?:ns)?\\s+\\S+%\\s+(\\S.*)$");

    @OnEachJdk
    void goToolPprofTopWeighsEveryFunctionAsTheReport(Jdk jdk) {
        Profiles.Profiled run = Profiles.pageFaults(jdk);
        for (String metric : METRICS) {
            JsonNode report = report(run, metric);
            JvmRun.Result top = pprof(run, "top-" + metric, "-top", "-nodefraction=0", "-nodecount=1000000",
                    "-unit=ns", "-sample_index=" + metric);
            Map<String, ProfileWeights.Weight> read = new TreeMap<>();
            for (String line : top.stdout().split("\n")) {
                Matcher row = TOP_ROW.matcher(line);
                if (row.matches()) {
                    read.put(row.group(3), new ProfileWeights.Weight(Long.parseLong(row.group(1)),
                            Long.parseLong(row.group(2))));
                }
            }
            Map<String, ProfileWeights.Weight> expected = ProfileWeights.ofReport(report);
            assertTrue(expected.containsKey(Profiles.TOUCH), () -> metric + ": " + expected);
            assertEquals(expected, read, () -> jdk + " " + metric + "\n" + top.stdout());
        }
    }

    @OnEachJdk
    void goToolPprofRawShowsSampleTypesPeriodAndThreadLabels(Jdk jdk) {
        Profiles.Profiled run = Profiles.pageFaults(jdk);
        String raw = pprof(run, "raw", "-raw").stdout();
        assertTrue(raw.contains("PeriodType: task-clock nanoseconds\nPeriod: 1000000\n"), raw);
        List<String> lines = raw.lines().toList();
        int header = lines.indexOf("task-clock/nanoseconds[dflt] page-faults/count samples/count");
        assertTrue(header > 0, () -> "no sample types line\n" + raw);
        // A sample: its three values, a colon and its location ids, then its labels on the next lines.
        Pattern sample = Pattern.compile("^\\s*(\\d+)\\s+(\\d+)\\s+(\\d+):(?: \\d+)+ $");
        long[] sums = new long[3];
        for (String line : lines.subList(header + 1, lines.size())) {
            Matcher values = sample.matcher(line);
            if (values.matches()) {
                for (int i = 0; i < 3; i++) {
                    sums[i] += Long.parseLong(values.group(i + 1));
                }
            }
        }
        for (int i = 0; i < METRICS.size(); i++) {
            long reportTotal = report(run, METRICS.get(i)).path("totalWeight").asLong();
            assertEquals(reportTotal, sums[i], METRICS.get(i) + "\n" + raw);
        }
        assertEquals(report(run, METRICS.get(0)).path("matched").asLong(), sums[2], raw);
        assertTrue(Pattern.compile("thread\\.name:\\[main\\]\\s+thread\\.id:\\[\\d+\\] thread\\.os_id:\\[\\d+\\]")
                .matcher(raw).find(), raw);
    }

    @OnEachJdk
    void otlpWeighsEveryFunctionAsTheReport(Jdk jdk) throws IOException {
        Profiles.Profiled run = Profiles.pageFaults(jdk);
        ExportProfilesServiceRequest request =
                ExportProfilesServiceRequest.parseFrom(Files.readAllBytes(run.file("profile.otlp.pb")));
        for (String metric : METRICS) {
            assertEquals(ProfileWeights.ofReport(report(run, metric)),
                    ProfileWeights.ofOtlp(request, metric), jdk + " " + metric);
        }
        List<String> threadNames = new ArrayList<>();
        request.getDictionary().getAttributeTableList().forEach(attribute -> {
            if (request.getDictionary().getStringTable(attribute.getKeyStrindex()).equals("thread.name")) {
                threadNames.add(attribute.getValue().getStringValue());
            }
        });
        assertTrue(threadNames.contains("main"), threadNames::toString);
    }

    /**
     * Acceptance 7: the JDK's own reader reads profile.jfr with its stacks: {@code jfr print} of the
     * JDK under test prints every event with a stack, and {@code RecordingFile} (this JVM's) reads
     * counters that add up to the report's totals.
     */
    @OnEachJdk
    void theJdksReaderReadsProfileJfrWithStacks(Jdk jdk) throws IOException {
        Profiles.Profiled run = Profiles.pageFaults(jdk);
        Path profileJfr = run.file("profile.jfr");
        List<JfrPrint.Printed> printed = JfrPrint.parse(
                JfrPrint.print(jdk, profileJfr, EnrichedRecordingWriter.EVENT_NAME, run.workDir()),
                EnrichedRecordingWriter.EVENT_NAME);
        long matched = report(run, METRICS.get(0)).path("matched").asLong();
        assertEquals(matched, printed.size(), "events jfr print shows");
        for (JfrPrint.Printed event : printed) {
            assertTrue(!event.stack.isEmpty() && event.threadName != null, event::toString);
        }
        long taskClock = 0;
        double pageFaults = 0;
        long withStack = 0;
        for (RecordedEvent event : RecordingFile.readAllEvents(profileJfr)) {
            if (!event.getEventType().getName().equals(EnrichedRecordingWriter.EVENT_NAME)) {
                continue; // the same samples as jdk.ExecutionSample, and their settings
            }
            taskClock += event.getLong("taskClock");
            pageFaults += event.getDouble("pageFaults");
            withStack += event.getStackTrace() != null && !event.getStackTrace().getFrames().isEmpty() ? 1 : 0;
        }
        assertEquals(matched, withStack);
        assertEquals(report(run, METRICS.get(0)).path("totalWeight").asLong(), taskClock);
        assertEquals(report(run, METRICS.get(1)).path("totalWeight").asLong(), (long) pageFaults);
    }

    /** The leader's report is the default one, which other tests of the same run ask for too. */
    private static JsonNode report(Profiles.Profiled run, String metric) {
        return metric.equals(METRICS.get(0)) ? run.report("--top", "0") : run.report("--metric", metric, "--top", "0");
    }

    private static JvmRun.Result pprof(Profiles.Profiled run, String name, String... options) {
        if (!Files.isExecutable(GO)) {
            fail(GO + " is missing: tests/run installs Debian's golang-go, whose go tool pprof this test runs");
        }
        List<String> command = new ArrayList<>(List.of(GO.toString(), "tool", "pprof"));
        command.addAll(List.of(options));
        command.add(run.file("profile.pb.gz").toString());
        JvmRun.Result result = JvmRun.command(null, run.workDir(), command).name("pprof-" + name)
                .timeout(Duration.ofSeconds(120)).start();
        assertEquals(0, result.exitCode(), () -> "go tool pprof failed\n" + result);
        return result;
    }
}
