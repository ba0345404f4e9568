package io.stackreq.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.stackreq.fixtures.Cli;
import io.stackreq.fixtures.OwnJvmRecording;
import io.stackreq.fixtures.Scenario;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * {@code unbias} on a recording with the JVM's own samples (this JVM's, recorded by JFR) and the
 * scenario's stack-trace events, and on recordings it cannot rewrite.
 */
class UnbiasCommandTest {
    @TempDir
    static Path directory;
    static Scenario scenario;
    static Path recording;
    static byte[] recordingBytes;

    @BeforeAll
    static void record() throws IOException {
        scenario = Scenario.write(directory);
        recording = OwnJvmRecording.withScenario(directory, scenario);
        recordingBytes = Files.readAllBytes(recording);
    }

    @Test
    void theJvmsSamplesAreReplacedByTheMatchedSamplesAndEveryOtherEventIsKept() throws IOException {
        Path output = directory.resolve("unbiased.jfr");
        Cli.Result result = Cli.run("unbias", recording, "--samples", scenario.samples, "-o", output);
        assertEquals(0, result.exitCode(), result.err());
        Map<String, Long> before = countByType(recording);
        Map<String, Long> after = countByType(output);
        assertTrue(result.err().matches("(?s)stackreq: wrote .*unbiased.jfr: the JVM's recording, its "
                + before.get("jdk.ExecutionSample") + " jdk.ExecutionSample replaced by stackreq's 14 unbiased "
                + "samples; every other event as it was\\R"), result.err());
        assertEquals(14, after.get("jdk.ExecutionSample"));
        for (String type : List.of("jdk.ExecutionSample", "jdk.ActiveSetting")) {
            before.remove(type);
            after.remove(type);
        }
        assertEquals(before, after, "every other event, jdk.StackTraceRequest included");
        Map<String, Long> tops = new TreeMap<>();
        for (RecordedEvent event : RecordingFile.readAllEvents(output)) {
            if (event.getEventType().getName().equals("jdk.ExecutionSample")) {
                RecordedFrame top = event.getStackTrace().getFrames().get(0);
                tops.merge(top.getMethod().getType().getName() + "." + top.getMethod().getName(), 1L, Long::sum);
            }
        }
        assertEquals(Map.of(Scenario.A, 6L, Scenario.HASH, 2L, Scenario.B, 3L, Scenario.WORKER, 2L,
                Scenario.RECURSIVE, 1L), tops);
        assertArrayEquals(recordingBytes, Files.readAllBytes(recording), "the input is only read");
    }

    @Test
    void aRecordingCutShortIsOneLineAndNoFile() throws IOException {
        Path cut = Files.write(directory.resolve("cut.jfr"), Arrays.copyOf(recordingBytes, recordingBytes.length - 100));
        assertOneLine(cut, "cut short");
    }

    @Test
    void anUnknownChunkVersionIsOneLineAndNoFile() throws IOException {
        ByteBuffer bytes = ByteBuffer.wrap(recordingBytes.clone());
        bytes.putShort(4, (short) 3).putShort(6, (short) 0);
        Path future = Files.write(directory.resolve("future.jfr"), bytes.array());
        assertOneLine(future, "JFR version 3.0, which stackreq does not know");
    }

    @Test
    void aCorruptEventIsOneLineAndNoFile() throws IOException {
        ByteBuffer bytes = ByteBuffer.wrap(recordingBytes.clone());
        bytes.put(68, new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07});
        Path corrupt = Files.write(directory.resolve("corrupt.jfr"), bytes.array());
        assertOneLine(corrupt, "is corrupt");
    }

    @Test
    void theRecordingItselfIsNeverTheOutput() throws IOException {
        Path copy = Files.write(directory.resolve("in-place.jfr"), recordingBytes);
        Cli.Result result = Cli.run("unbias", copy, "--samples", scenario.samples, "-o", copy);
        assertEquals(2, result.exitCode(), result.err());
        assertTrue(result.err().contains("refusing to write") && result.err().contains("it is the input"),
                result.err());
        assertArrayEquals(recordingBytes, Files.readAllBytes(copy));
    }

    private static void assertOneLine(Path bad, String problem) {
        Path output = directory.resolve("never-" + bad.getFileName());
        Cli.Result result = Cli.run("unbias", bad, "--samples", scenario.samples, "-o", output);
        assertEquals(2, result.exitCode(), result.err());
        assertEquals(1, result.err().lines().count(), result.err());
        assertTrue(result.err().startsWith("stackreq: cannot rewrite recording " + bad) && result.err().contains(problem),
                result.err());
        assertFalse(Files.exists(output), "no file is left behind");
    }

    private static Map<String, Long> countByType(Path file) throws IOException {
        Map<String, Long> counts = new TreeMap<>();
        for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
            counts.merge(event.getEventType().getName(), 1L, Long::sum);
        }
        return counts;
    }
}
