package io.stackreq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.stackreq.fixtures.Cli;
import io.stackreq.fixtures.FixtureFrame;
import io.stackreq.fixtures.FixtureRecording;
import io.stackreq.fixtures.FixtureSamples;
import io.stackreq.fixtures.FlamePage;

/**
 * Native frames as libstackreq writes them with native=on (type Native, class = the library's
 * file name or jvm-stubs, method = the function) through report, collapsed, flame and enrich. A Java
 * native method (type Native too, but a Java class) stays a Java frame.
 *
 * <pre>
 * userData  stack (top first)                                                              task-clock
 *  1..3     native_chain_level2 [libchain.so] <- native_chain_level1 [libchain.so]
 *           <- app.Chain.spin (Java native method) <- app.Chain.main                       1 ms each
 *  4        jint_disjoint_arraycopy [jvm-stubs] <- app.Chain.copy <- app.Chain.main             1 ms
 * </pre>
 */
class NativeFramesCliTest {
    static final String LEVEL2 = "native_chain_level2 [libchain.so]";
    static final String LEVEL1 = "native_chain_level1 [libchain.so]";
    static final String STUB = "jint_disjoint_arraycopy [jvm-stubs]";
    static final String SPIN = "app.Chain.spin";
    static final String COPY = "app.Chain.copy";
    static final String MAIN = "app.Chain.main";

    @TempDir
    static Path directory;
    static Path recording;
    static Path samples;

    @BeforeAll
    static void writeRecording() throws IOException {
        FixtureFrame level2 = nativeCode("libchain.so", "native_chain_level2");
        FixtureFrame level1 = nativeCode("libchain.so", "native_chain_level1");
        FixtureFrame spin = new FixtureFrame("app.Chain", "spin", "(JI)J", -1, -1, "Native");
        FixtureFrame main = FixtureFrame.jit("app.Chain", "main", 7);
        FixtureRecording fixture = new FixtureRecording();
        FixtureSamples perf = new FixtureSamples("task-clock");
        for (long id = 1; id <= 3; id++) {
            fixture.stack(id, "main", level2, level1, spin, main);
            perf.sample(id, 1001, 1_000_000);
        }
        fixture.stack(4, "main", nativeCode("jvm-stubs", "jint_disjoint_arraycopy"),
                FixtureFrame.jit("app.Chain", "copy", 12), main);
        perf.sample(4, 1001, 1_000_000);
        recording = fixture.write(directory.resolve("recording.jfr"));
        samples = perf.write(directory.resolve("samples.jsonl"));
    }

    private static FixtureFrame nativeCode(String library, String function) {
        return new FixtureFrame(library, function, "()V", -1, -1, "Native");
    }

    @Test
    void collapsedNamesNativeFramesByFunctionAndLibrary() throws IOException {
        Path output = directory.resolve("stacks.collapsed");
        Cli.Result result = Cli.run("collapsed", recording, "--samples", samples, "-o", output);
        assertEquals(0, result.exitCode(), result.err() + result.out());
        assertEquals(Set.of(MAIN + ";" + SPIN + ";" + LEVEL1 + ";" + LEVEL2 + " 3000000",
                MAIN + ";" + COPY + ";" + STUB + " 1000000"), Set.copyOf(Files.readAllLines(output)));
    }

    @Test
    void reportPutsTheHotCFunctionOnTop() {
        Cli.Result result = Cli.run("report", recording, "--samples", samples);
        assertEquals(0, result.exitCode(), result.err() + result.out());
        String row = result.out().lines().filter(line -> line.endsWith("  " + LEVEL2)).findFirst()
                .orElseThrow(() -> new AssertionError(result.out()));
        assertTrue(row.matches("\\s+75\\.0%\\s+3\\.000 ms\\s+75\\.0%\\s+3\\.000 ms\\s+.*"), row);
    }

    @Test
    void flameGraphMarksNativeCodeForItsOwnColour() throws IOException {
        Path output = directory.resolve("flame.html");
        Cli.Result result = Cli.run("flame", recording, "--samples", samples, "-o", output);
        assertEquals(0, result.exitCode(), result.err() + result.out());
        FlamePage.Node main = FlamePage.read(output).root().child(MAIN);
        FlamePage.Node spin = main.child(SPIN);
        FlamePage.Node level2 = spin.child(LEVEL1).child(LEVEL2);
        assertEquals(List.of("native", 3_000_000L, 3_000_000L), List.of(level2.kind(), level2.total(), level2.self()));
        FlamePage.Node stub = main.child(COPY).child(STUB);
        assertEquals(List.of("native", 1_000_000L, 1_000_000L), List.of(stub.kind(), stub.total(), stub.self()));
        // The Java native method is Java code: no native mark.
        assertEquals(List.of("java", 3_000_000L, 0L), List.of(spin.kind(), spin.total(), spin.self()));
        assertTrue(Files.readString(output).contains("profile.kinds.native"), "the page colours native code");
    }

    @Test
    void enrichedRecordingKeepsNativeFramesWithTheirLibrary() throws IOException {
        Path output = directory.resolve("profile.jfr");
        Cli.Result result = Cli.run("enrich", recording, "--samples", samples, "-o", output);
        assertEquals(0, result.exitCode(), result.err() + result.out());
        List<RecordedEvent> events = RecordingFile.readAllEvents(output).stream()
                .filter(e -> e.getEventType().getName().equals("stackreq.PerfSample")).toList();
        assertEquals(4, events.size());
        boolean sawChain = false;
        for (RecordedEvent event : events) {
            List<RecordedFrame> frames = event.getStackTrace().getFrames();
            if (!frames.get(0).getMethod().getName().equals("native_chain_level2")) {
                continue;
            }
            sawChain = true;
            assertEquals("libchain.so", frames.get(0).getMethod().getType().getName());
            assertEquals("Native", frames.get(0).getType());
            assertEquals("native_chain_level1", frames.get(1).getMethod().getName());
            assertEquals("app.Chain", frames.get(2).getMethod().getType().getName());
            assertFalse(frames.get(3).getType().equals("Native"));
        }
        assertTrue(sawChain, "no enriched event has the C chain on top");
    }
}
