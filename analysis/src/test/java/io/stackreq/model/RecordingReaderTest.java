package io.stackreq.model;

import static io.stackreq.fixtures.FixtureFrame.jit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.stackreq.fixtures.FixtureFrame;
import io.stackreq.fixtures.FixtureRecording;
import jdk.jfr.Recording;

class RecordingReaderTest {
    @TempDir
    Path directory;

    @Test
    void readsNativeShapedEventsWithThreadStackAndFlags() throws IOException {
        Path file = new FixtureRecording()
                .stack(1, "main", jit("app.Main", "work", 12), new FixtureFrame("app.Main", "main", 3, "Java"))
                .event(2, "worker", 20, true, false)
                .event(3, "main", 1, false, true, jit("app.Main", "work", 13))
                .write(directory.resolve("r.jfr"));
        RecordingContents contents = RecordingReader.read(file);
        assertEquals(3, contents.eventCount());
        StackEvent first = events(contents).filter(e -> e.userData() == 1).findFirst().orElseThrow();
        assertEquals("main", first.threadName());
        assertEquals(2, first.frames().size());
        Frame top = first.frames().get(0);
        assertEquals("app.Main.work", top.qualifiedMethod());
        assertEquals(12, top.lineNumber());
        assertEquals(24, top.bytecodeIndex());
        assertEquals("JIT compiled", top.type());
        assertEquals("()V", top.descriptor());
        // JMC core keeps descriptions it does not know, upper-cased (IMCFrame.Type).
        assertEquals("JAVA", first.frames().get(1).type());
        assertEquals(FixtureRecording.START_EPOCH_NANOS + 1_000_000, first.startEpochNanos());
        assertTrue(first.hasStack());
        StackEvent failed = events(contents).filter(e -> e.userData() == 2).findFirst().orElseThrow();
        assertTrue(failed.failed());
        assertFalse(failed.hasStack());
        assertTrue(events(contents).filter(e -> e.userData() == 3).findFirst().orElseThrow().biased());
        assertTrue(contents.statistics().isEmpty());
    }

    private static Stream<StackEvent> events(RecordingContents contents) {
        return IntStream.range(0, contents.eventCount()).mapToObj(contents::event);
    }

    @Test
    void readsEventsFromChunksAppendedToAJvmRecording() throws IOException {
        // What stackreq produces: the JVM's own recording, then chunks with their own metadata.
        Path jvmRecording = directory.resolve("jvm.jfr");
        try (Recording recording = new Recording()) {
            recording.enable("jdk.JavaMonitorWait");
            recording.start();
            recording.stop();
            recording.dump(jvmRecording);
        }
        Path first = new FixtureRecording().stack(1, "main", jit("app.A", "a", 1)).write(directory.resolve("c1.jfr"));
        Path second = new FixtureRecording().startingAt(FixtureRecording.START_EPOCH_NANOS + 2_000_000_000L)
                .stack(2, "main", jit("app.B", "b", 2)).stack(3, "t", jit("app.B", "b", 3))
                .write(directory.resolve("c2.jfr"));
        Path combined = directory.resolve("combined.jfr");
        try (OutputStream out = Files.newOutputStream(combined)) {
            for (Path part : List.of(jvmRecording, first, second)) {
                out.write(Files.readAllBytes(part));
            }
        }
        RecordingContents contents = RecordingReader.read(combined);
        // JMC core parses one chunk at a time here: the events arrive in file order.
        assertEquals(List.of(1L, 2L, 3L), events(contents).map(StackEvent::userData).toList());
    }
}
