package io.stackreq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.util.JsonFormat;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.profiles.v1development.KeyValueAndUnit;
import io.stackreq.export.pprof.Label;
import io.stackreq.export.pprof.Profile;
import io.stackreq.export.pprof.Sample;
import io.stackreq.fixtures.Cli;
import io.stackreq.fixtures.FixtureRecording;
import io.stackreq.fixtures.ProfileWeights;
import io.stackreq.fixtures.Scenario;
import io.stackreq.fixtures.ScenarioFixture;

/** export --format pprof|otlp on the shared scenario, read back with the formats' protobuf classes. */
class ExportCommandTest extends ScenarioFixture {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> METRICS = List.of("task-clock", "page-faults");


    private static Path export(String name, Object... formatOptions) {
        Path output = directory.resolve(name);
        List<Object> args = new ArrayList<>(List.of("export", scenario.recording, "--samples", scenario.samples,
                "-o", output));
        args.addAll(List.of(formatOptions));
        Cli.Result result = Cli.run(args.toArray());
        assertEquals(0, result.exitCode(), result.err());
        assertTrue(result.err().startsWith("stackreq: wrote " + output + " (14 samples in "), result.err());
        return output;
    }

    private static JsonNode report(String metric) throws IOException {
        Cli.Result result = Cli.run("report", scenario.recording, "--samples", scenario.samples, "--metric", metric,
                "--format", "json", "--top", "0");
        assertEquals(0, result.exitCode(), result.err());
        return JSON.readTree(result.out());
    }

    @Test
    void pprofHasOneSampleTypePerCounterAndTheReportsWeights() throws IOException {
        Profile profile = ProfileWeights.readPprof(export("profile.pb.gz", "--format", "pprof"));
        List<String> types = new ArrayList<>();
        profile.getSampleTypeList().forEach(type -> types.add(
                profile.getStringTable((int) type.getType()) + "/" + profile.getStringTable((int) type.getUnit())));
        assertEquals(List.of("task-clock/nanoseconds", "page-faults/count", "samples/count"), types);
        assertEquals("task-clock/nanoseconds", profile.getStringTable((int) profile.getPeriodType().getType()) + "/"
                + profile.getStringTable((int) profile.getPeriodType().getUnit()));
        assertEquals(1_000_000, profile.getPeriod());
        assertEquals("task-clock", profile.getStringTable((int) profile.getDefaultSampleType()));
        // Events userData 1..16 ms into the recording: the earliest and the span to the latest.
        assertEquals(FixtureRecording.START_EPOCH_NANOS + 1_000_000, profile.getTimeNanos());
        assertEquals(15_000_000, profile.getDurationNanos());
        for (String metric : METRICS) {
            assertEquals(ProfileWeights.ofReport(report(metric)), ProfileWeights.ofPprof(profile, metric), metric);
        }
        Map<String, ProfileWeights.Weight> samples = ProfileWeights.ofPprof(profile, "samples");
        assertEquals(new ProfileWeights.Weight(6, 8), samples.get(Scenario.A));
        assertEquals(new ProfileWeights.Weight(0, 12), samples.get(Scenario.MAIN));
    }

    @Test
    void pprofFunctionsLinesAndThreadLabels() throws IOException {
        Profile profile = ProfileWeights.readPprof(export("labels.pb.gz", "--format", "pprof"));
        Set<String> functionLines = new TreeSet<>();
        profile.getLocationList().forEach(location -> {
            long functionId = location.getLine(0).getFunctionId();
            String name = profile.getStringTable((int) profile.getFunction((int) functionId - 1).getName());
            functionLines.add(name + ":" + location.getLine(0).getLine());
        });
        assertEquals(Set.of(Scenario.A + ":30", Scenario.A + ":31", Scenario.MAIN + ":20", Scenario.MAIN + ":21",
                Scenario.MAIN + ":22", Scenario.HASH + ":10", Scenario.B + ":40", Scenario.WORKER + ":5",
                Scenario.THREAD_RUN + ":833", Scenario.RECURSIVE + ":3", Scenario.RECURSIVE + ":4"), functionLines);
        Set<String> threads = new TreeSet<>();
        for (Sample sample : profile.getSampleList()) {
            StringBuilder labels = new StringBuilder();
            for (Label label : sample.getLabelList()) {
                labels.append(profile.getStringTable((int) label.getKey())).append('=')
                        .append(label.getStr() != 0 ? profile.getStringTable((int) label.getStr()) : label.getNum())
                        .append(' ');
            }
            threads.add(labels.toString().trim());
        }
        // The fixture's threads have no Java thread id (a JVM's do: thread.id, see the end-to-end test).
        assertEquals(Set.of("thread.name=main thread.os_id=" + Scenario.MAIN_TID,
                "thread.name=worker thread.os_id=" + Scenario.WORKER_TID), threads);
    }

    @Test
    void otlpBinaryAndJsonHoldTheSameProfilesAsTheReport() throws IOException {
        ExportProfilesServiceRequest binary = ExportProfilesServiceRequest.parseFrom(
                Files.readAllBytes(export("profile.otlp.pb", "--format", "otlp")));
        ExportProfilesServiceRequest.Builder json = ExportProfilesServiceRequest.newBuilder();
        JsonFormat.parser().merge(Files.readString(export("profile.otlp.json", "--format", "otlp", "--json")), json);
        assertEquals(binary, json.build());

        var dictionary = binary.getDictionary();
        var profiles = binary.getResourceProfiles(0).getScopeProfiles(0).getProfilesList();
        List<String> types = new ArrayList<>();
        profiles.forEach(profile -> types.add(dictionary.getStringTable(profile.getSampleType().getTypeStrindex())
                + "/" + dictionary.getStringTable(profile.getSampleType().getUnitStrindex())));
        assertEquals(List.of("task-clock/nanoseconds", "page-faults/count", "samples/count"), types);
        for (var profile : profiles) {
            assertEquals(FixtureRecording.START_EPOCH_NANOS + 1_000_000, profile.getTimeUnixNano());
            assertEquals(15_000_000, profile.getDurationNano());
            assertEquals(1_000_000, profile.getPeriod());
        }
        for (String metric : METRICS) {
            assertEquals(ProfileWeights.ofReport(report(metric)), ProfileWeights.ofOtlp(binary, metric), metric);
        }
        Set<String> attributes = new TreeSet<>();
        for (KeyValueAndUnit attribute : dictionary.getAttributeTableList().subList(1,
                dictionary.getAttributeTableCount())) {
            attributes.add(dictionary.getStringTable(attribute.getKeyStrindex()) + "="
                    + (attribute.getValue().hasStringValue() ? attribute.getValue().getStringValue()
                            : attribute.getValue().getIntValue()));
        }
        assertEquals(Set.of("thread.name=main", "thread.name=worker", "thread.os_id=" + Scenario.MAIN_TID,
                "thread.os_id=" + Scenario.WORKER_TID), attributes);
    }

    @Test
    void theProfileJfrOfEnrichReadsInTheJdksReaderAndExportsTheSameWeights() throws IOException {
        Path enriched = directory.resolve("profile.jfr");
        Cli.Result enrich = Cli.run("enrich", scenario.recording, "--samples", scenario.samples, "-o", enriched);
        assertEquals(0, enrich.exitCode(), enrich.err());
        // The JDK's own reader reads it too, stacks included: each sample a jdk.ExecutionSample with
        // the stack and thread of its stackreq.PerfSample.
        List<RecordedEvent> all = RecordingFile.readAllEvents(enriched);
        List<RecordedEvent> events = all.stream()
                .filter(event -> event.getEventType().getName().equals("stackreq.PerfSample")).toList();
        List<RecordedEvent> executionSamples = all.stream()
                .filter(event -> event.getEventType().getName().equals("jdk.ExecutionSample")).toList();
        assertEquals(14, events.size());
        assertEquals(14, executionSamples.size());
        for (int i = 0; i < events.size(); i++) {
            assertEquals(events.get(i).getStartTime(), executionSamples.get(i).getStartTime());
            assertEquals(events.get(i).getThread().getJavaName(),
                    executionSamples.get(i).getThread("sampledThread").getJavaName());
            assertEquals(events.get(i).getStackTrace().getFrames().toString(),
                    executionSamples.get(i).getStackTrace().getFrames().toString());
        }
        for (RecordedEvent event : events) {
            RecordedFrame top = event.getStackTrace().getFrames().get(0);
            if (event.getLong("userData") == 7) {
                assertEquals(Scenario.HASH + ":10", top.getMethod().getType().getName() + "."
                        + top.getMethod().getName() + ":" + top.getLineNumber());
                assertEquals(3, event.getStackTrace().getFrames().size());
                assertEquals("main", event.getThread().getJavaName());
            }
        }
        Path output = directory.resolve("enriched.pb.gz");
        Cli.Result result = Cli.run("export", enriched, "--format", "pprof", "-o", output);
        assertEquals(0, result.exitCode(), result.err());
        Profile profile = ProfileWeights.readPprof(output);
        for (String metric : METRICS) {
            assertEquals(ProfileWeights.ofReport(report(metric)), ProfileWeights.ofPprof(profile, metric), metric);
        }
        assertEquals("task-clock", profile.getStringTable((int) profile.getPeriodType().getType()));
        assertEquals(Set.of(Scenario.MAIN_TID, Scenario.WORKER_TID), osThreadIds(profile));
    }

    private static Set<Long> osThreadIds(Profile profile) {
        Set<Long> ids = new TreeSet<>();
        for (Sample sample : profile.getSampleList()) {
            for (Label label : sample.getLabelList()) {
                if (profile.getStringTable((int) label.getKey()).equals("thread.os_id")) {
                    ids.add(label.getNum());
                }
            }
        }
        return ids;
    }

    @Test
    void badInputIsOneLineAndExitTwo() throws IOException {
        Path target = Files.writeString(directory.resolve("target.txt"), "keep");
        Path link = Files.createSymbolicLink(directory.resolve("link.pb.gz"), target);
        List<Object[]> bad = List.of(
                new Object[] {"export", scenario.recording, "--samples", scenario.samples, "--format", "pprof",
                    "-o", link},
                new Object[] {"export", scenario.recording, "--samples", scenario.samples, "--format", "pprof",
                    "--json", "-o", directory.resolve("x")},
                new Object[] {"export", scenario.recording, "--samples", scenario.samples, "--format", "svg",
                    "-o", directory.resolve("x")},
                new Object[] {"export", directory.resolve("missing.jfr"), "--format", "otlp", "-o",
                    directory.resolve("x")},
                new Object[] {"export", scenario.samples, "--samples", scenario.samples, "--format", "otlp", "-o",
                    directory.resolve("x")});
        for (Object[] args : bad) {
            Cli.Result result = Cli.run(args);
            assertEquals(2, result.exitCode(), result.err());
            assertEquals(1, result.err().lines().count(), result.err());
            assertTrue(result.err().startsWith("stackreq: "), result.err());
        }
        assertEquals("keep", Files.readString(target));
        assertFalse(Files.exists(directory.resolve("x")));
    }
}
