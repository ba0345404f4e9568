package io.stackreq.jfr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmc.common.IMCMethod;
import org.openjdk.jmc.common.IMCStackTrace;
import org.openjdk.jmc.common.item.IItem;
import org.openjdk.jmc.common.item.IItemCollection;
import org.openjdk.jmc.common.item.IItemIterable;
import org.openjdk.jmc.common.item.IMemberAccessor;
import org.openjdk.jmc.flightrecorder.JfrAttributes;
import org.openjdk.jmc.flightrecorder.JfrLoaderToolkit;
import org.openjdk.jmc.flightrecorder.jdk.JdkFilters;

import io.stackreq.fixtures.OwnJvmRecording;
import io.stackreq.model.Frame;
import io.stackreq.model.InputException;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/**
 * The copy of a real JDK recording without its CPU samples, with a chunk of samples appended as
 * the CLI appends stackreq's: every other event as it was, the samples and their settings the
 * appended chunk's, readable by the JDK's parser and JMC core; and the recordings it refuses.
 */
class RecordingRewriterTest {
    private static final List<Frame> STACK = List.of(new Frame("app.Main", "work", "()V", 7, 2, "JIT compiled"));
    private static final int APPENDED = 25;

    @TempDir
    static Path directory;
    static Path recording;
    static byte[] recordingBytes;
    static Path rewritten;
    static RecordingRewriter.Removed removed;

    @BeforeAll
    static void rewrite() throws IOException {
        recording = OwnJvmRecording.write(directory.resolve("jvm.jfr"));
        recordingBytes = Files.readAllBytes(recording);
        rewritten = directory.resolve("rewritten.jfr");
        try (SeekableByteChannel out = Files.newByteChannel(rewritten, StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE)) {
            removed = RecordingRewriter.copyWithoutSamples(recording, out);
            long start = RecordingFile.readAllEvents(recording).stream()
                    .mapToLong(event -> event.getStartTime().getEpochSecond() * 1_000_000_000L
                            + event.getStartTime().getNano()).min().orElseThrow();
            JdkChunkWriter chunk = new JdkChunkWriter(out, start, ChunkContext.beside(recording), List.of());
            long thread = chunk.thread("main", 1, "main", 1);
            long stack = chunk.stackTrace(STACK, false);
            chunk.activeSetting(chunk.startEpochNanos(), JdkChunkWriter.EXECUTION_SAMPLE, "enabled", "true");
            chunk.activeSetting(chunk.startEpochNanos(), JdkChunkWriter.EXECUTION_SAMPLE, "period", "1 ms");
            for (int i = 0; i < APPENDED; i++) {
                chunk.executionSample(start + i, thread, stack);
            }
            chunk.close();
        }
    }

    @Test
    void everyEventButTheJvmsSamplesIsKeptAndTheSamplesAreTheAppendedOnes() throws IOException {
        Map<String, Long> before = countByType(recording);
        Map<String, Long> after = countByType(rewritten);
        long jvmSamples = before.getOrDefault(JdkChunkWriter.EXECUTION_SAMPLE, 0L);
        assertTrue(jvmSamples > 0, "the JVM sampled itself: " + before);
        assertEquals(Map.of(JdkChunkWriter.EXECUTION_SAMPLE, jvmSamples), removed.samples());
        assertTrue(removed.settings() >= 1, "the JVM's settings of its sampler went with its samples");
        assertEquals(APPENDED, after.get(JdkChunkWriter.EXECUTION_SAMPLE));
        assertEquals(before.get(JdkChunkWriter.ACTIVE_SETTING) - removed.settings() + 2,
                after.get(JdkChunkWriter.ACTIVE_SETTING));
        Map<String, Long> others = new TreeMap<>(before);
        Map<String, Long> othersAfter = new TreeMap<>(after);
        for (String replaced : List.of(JdkChunkWriter.EXECUTION_SAMPLE, JdkChunkWriter.ACTIVE_SETTING)) {
            others.remove(replaced);
            othersAfter.remove(replaced);
        }
        assertEquals(others, othersAfter);
        for (RecordedEvent event : RecordingFile.readAllEvents(rewritten)) {
            if (event.getEventType().getName().equals(JdkChunkWriter.EXECUTION_SAMPLE)) {
                assertEquals("app.Main.work", event.getStackTrace().getFrames().get(0).getMethod().getType().getName()
                        + "." + event.getStackTrace().getFrames().get(0).getMethod().getName());
            }
        }
        assertArrayEquals(recordingBytes, Files.readAllBytes(recording), "the input is only read");
    }

    @Test
    void jmcCoreLoadsItWithTheAppendedSamplesAsItsExecutionSamples() throws Exception {
        IItemCollection samples = JfrLoaderToolkit.loadEvents(rewritten.toFile()).apply(JdkFilters.EXECUTION_SAMPLE);
        long count = 0;
        int types = 0;
        for (IItemIterable items : samples) {
            types++;
            IMemberAccessor<IMCStackTrace, IItem> stack = JfrAttributes.EVENT_STACKTRACE.getAccessor(items.getType());
            for (IItem item : items) {
                IMCMethod top = stack.getMember(item).getFrames().get(0).getMethod();
                assertEquals("app.Main.work", top.getType().getFullName() + "." + top.getMethodName());
                count++;
            }
        }
        assertEquals(APPENDED, count);
        assertTrue(types <= 1, "one execution sample type, not one per chunk");
    }

    @Test
    void theAppendedChunkTakesTheJvmsIdsForItsEventTypesAndNoneOfItsPoolTypes() throws IOException {
        try (ChunkFile file = new ChunkFile(rewritten)) {
            List<ChunkFile.Header> headers = file.headers();
            ChunkMetadata first = file.metadata(headers.get(0));
            ChunkMetadata last = file.metadata(headers.get(headers.size() - 1));
            assertEquals(first.idOf(JdkChunkWriter.EXECUTION_SAMPLE), last.idOf(JdkChunkWriter.EXECUTION_SAMPLE));
            assertEquals(first.idOf(JdkChunkWriter.ACTIVE_SETTING), last.idOf(JdkChunkWriter.ACTIVE_SETTING));
            for (String pool : List.of(JdkChunkWriter.STACK_TRACE, JdkChunkWriter.THREAD, "jdk.types.Method",
                    "java.lang.Class", "jdk.types.Symbol")) {
                assertFalse(first.types().containsKey(last.idOf(pool)), pool + " has an id of the JVM's");
            }
            assertFalse(first.metadataId() == last.metadataId(), "the JDK's parser would reuse the first's types");
        }
    }

    @Test
    void aRecordingCutShortIsNamedAndNotRewritten() throws IOException {
        Path cut = directory.resolve("cut.jfr");
        Files.write(cut, java.util.Arrays.copyOf(recordingBytes, recordingBytes.length / 2));
        InputException problem = assertThrows(InputException.class, () -> RecordingRewriter.check(cut));
        assertTrue(problem.getMessage().contains("cut short"), problem.getMessage());
    }

    @Test
    void aChunkVersionStackreqDoesNotKnowIsNamed() throws IOException {
        Path future = withBytes("future.jfr", 4, new byte[] {0, 3, 0, 0});
        InputException problem = assertThrows(InputException.class, () -> RecordingRewriter.check(future));
        assertTrue(problem.getMessage().contains("JFR version 3.0, which stackreq does not know"),
                problem.getMessage());
    }

    @Test
    void anEventWhoseSizeLeavesTheChunkIsCorruption() throws IOException {
        // The first event's size, five bytes of 0xff: a size larger than the chunk.
        Path corrupt = withBytes("corrupt.jfr", 68, new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff,
            0x07});
        InputException problem = assertThrows(InputException.class, () -> RecordingRewriter.check(corrupt));
        assertTrue(problem.getMessage().contains("is corrupt: its event at byte 68 declares a size of"),
                problem.getMessage());
        assertFalse(problem.getMessage().contains("\n"), problem.getMessage());
    }

    private static Path withBytes(String name, int offset, byte[] bytes) throws IOException {
        ByteBuffer changed = ByteBuffer.wrap(recordingBytes.clone());
        changed.put(offset, bytes);
        return Files.write(directory.resolve(name), changed.array());
    }

    private static Map<String, Long> countByType(Path file) throws IOException {
        Map<String, Long> counts = new TreeMap<>();
        for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
            counts.merge(event.getEventType().getName(), 1L, Long::sum);
        }
        return counts;
    }
}
