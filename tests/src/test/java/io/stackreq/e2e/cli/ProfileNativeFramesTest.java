package io.stackreq.e2e.cli;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.stream.StreamSupport;

import com.fasterxml.jackson.databind.JsonNode;

import io.stackreq.fixtures.FlamePage;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.OnEachJdk;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Tag;

/**
 * Issue 13, acceptance 5 and 7: {@code stackreq profile --native} of BiasTrap (60% of its CPU in
 * {@code System.arraycopy}, i.e. in the JVM's arraycopy stub once compiled): the report, flame
 * graph and enriched recording carry the native frames: the stub, named as the JVM names it, has
 * a good part of the self time, with copyArrays right below it (the rest of the copying runs in
 * libjvm's {@code _Copy_arrayof_conjoint_jlongs}, through the System.arraycopy native method, while
 * copyArrays is still interpreted; 40% is BiasTrap's counted loop).
 */
@Tag("alone")
class ProfileNativeFramesTest {
    @OnEachJdk
    void theArraycopyStubIsOnTopInReportFlameAndEnrichedRecording(Jdk jdk) throws IOException {
        Profiles.Profiled run = Profiles.biasTrapWithNativeFrames(jdk);
        JsonNode report = run.report();
        JsonNode stubEntry = null;
        for (JsonNode entry : report.path("entries")) {
            if (stubEntry == null && entry.path("name").asText().matches(".*arraycopy.* \\[jvm-stubs\\]")) {
                stubEntry = entry;
            }
        }
        String stub = stubEntry == null ? "" : stubEntry.path("name").asText();
        double stubSelf = stubEntry == null ? 0 : stubEntry.path("selfPct").asDouble();
        // Printed only: the report lists the methods with the most self time, and with native=on
        // copyArrays' own self time is nearly nil (the stub has it), so it may not be listed.
        double copyTotal = StreamSupport.stream(report.path("entries").spliterator(), false)
                .filter(entry -> Profiles.COPY_ARRAYS.equals(entry.path("name").asText()))
                .mapToDouble(entry -> entry.path("totalPct").asDouble()).findFirst().orElse(Double.NaN);
        FlamePage.Node flameRoot = FlamePage.read(run.file("flame.html")).root();
        List<RecordedEvent> samples = RecordingFile.readAllEvents(run.file("profile.jfr")).stream()
                .filter(e -> e.getEventType().getName().equals("stackreq.PerfSample")).toList();
        long stubOnTop = samples.stream().filter(e -> e.getStackTrace() != null
                && isArraycopyStubAboveCopyArrays(e.getStackTrace().getFrames())).count();
        System.out.printf("%s profile --native BiasTrap: %s self %.2f%%, copyArrays total %.2f%%; "
                + "profile.jfr %d of %d samples with the stub above copyArrays%n", jdk, stub, stubSelf, copyTotal,
                stubOnTop, samples.size());
        assertAll(
                () -> assertTrue(stubSelf >= 20, () -> "the arraycopy stub ([jvm-stubs]) has " + stubSelf
                        + "% self, not 20% or more: " + Profiles.entryNames(report)),
                () -> assertTrue(flameRoot.subtree().anyMatch(n -> n.name().equals(stub) && n.kind().equals("native")),
                        "flame.html has no native frame of the stub"),
                () -> assertTrue(stubOnTop >= 0.2 * samples.size(), () -> "profile.jfr: only " + stubOnTop + " of "
                        + samples.size() + " samples have the stub (Native, jvm-stubs) above copyArrays"));
    }

    private static boolean isArraycopyStubAboveCopyArrays(List<RecordedFrame> frames) {
        if (frames.size() < 2) {
            return false;
        }
        RecordedFrame top = frames.get(0);
        RecordedFrame caller = frames.get(1);
        return top.getType().equals("Native") && top.getMethod().getType().getName().equals("jvm-stubs")
                && top.getMethod().getName().contains("arraycopy")
                && (caller.getMethod().getType().getName() + "." + caller.getMethod().getName())
                        .equals(Profiles.COPY_ARRAYS);
    }
}
