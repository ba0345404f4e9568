package io.stackreq.jfr;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.stackreq.model.InputException;

/**
 * Copies a recording chunk by chunk without the JVM's own CPU samples ({@code jdk.ExecutionSample},
 * {@code jdk.CPUTimeSample}) and the {@code jdk.ActiveSetting} events of those types, every other
 * event as it was, byte for byte: for a chunk of stackreq's samples to take their place.
 *
 * <p>Leaving events out moves the ones after them, and two things in a chunk point at positions:
 * its header (size, last constant-pool event, metadata) and each constant-pool event, whose
 * {@code delta} leads back to the one before. Both are written anew; a constant-pool event's size
 * changes when its delta's length does. Nothing else in a chunk is a position.
 *
 * <p>Rewritten: JFR 2.0 and 2.1 chunks with compressed integers (every JDK since 11). Any other
 * chunk, one cut short, or one whose events do not tile it exactly stops the copy with a message
 * naming the chunk and the problem; the input is only read.
 */
public final class RecordingRewriter {
    /** The JVM's own CPU samples, which stackreq's replace. */
    public static final List<String> REPLACED_SAMPLES = List.of(JdkChunkWriter.EXECUTION_SAMPLE, "jdk.CPUTimeSample");
    private static final int KNOWN_MAJOR = 2;
    private static final int NEWEST_MINOR = 1;
    private static final long CHECKPOINT = 1;

    /**
     * What the copy left out.
     *
     * @param samples  the JVM's samples left out, by type
     * @param settings the {@code jdk.ActiveSetting} events of those types left out
     * @param chunks   chunks copied
     */
    public record Removed(Map<String, Long> samples, long settings, int chunks) {
    }

    private RecordingRewriter() {
    }

    /**
     * Checks that every chunk of {@code recording} can be rewritten, reading it as the copy would.
     *
     * @throws InputException naming the file, the chunk and the problem
     */
    public static void check(Path recording) {
        copy(recording, null);
    }

    /**
     * Writes {@code recording}'s chunks without the JVM's CPU samples to {@code out}, from its position.
     *
     * @throws InputException naming the file, the chunk and the problem; {@code out} then holds
     *                        part of the copy
     */
    public static Removed copyWithoutSamples(Path recording, SeekableByteChannel out) {
        return copy(recording, out);
    }

    private static Removed copy(Path recording, SeekableByteChannel out) {
        Map<String, Long> samples = new LinkedHashMap<>();
        long settings = 0;
        int chunks = 0;
        try (ChunkFile file = new ChunkFile(recording)) {
            for (ChunkFile.Header header : file.headers()) {
                checkVersion(header);
                ChunkCopy copy = new ChunkCopy(header, file.load(header));
                copy.run();
                if (out != null) {
                    write(out, copy.output());
                }
                copy.removedSamples.forEach((type, count) -> samples.merge(type, count, Long::sum));
                settings += copy.removedSettings;
                chunks++;
            }
        } catch (CorruptChunkException e) {
            throw new InputException("cannot rewrite recording " + recording + ": " + e.getMessage(), e);
        } catch (IOException e) {
            throw new InputException("cannot rewrite recording " + recording + ": " + e.getMessage(), e);
        }
        return new Removed(samples, settings, chunks);
    }

    private static void checkVersion(ChunkFile.Header header) {
        if (header.major() != KNOWN_MAJOR || header.minor() > NEWEST_MINOR) {
            throw new CorruptChunkException("the chunk at byte " + header.fileOffset() + " is JFR version "
                    + header.major() + "." + header.minor() + ", which stackreq does not know (it rewrites 2.0 and "
                    + "2.1)");
        }
        if ((header.flags() & ChunkFile.COMPRESSED_INTEGERS) == 0) {
            throw new CorruptChunkException("the chunk at byte " + header.fileOffset()
                    + " has uncompressed integers, which stackreq does not rewrite");
        }
    }

    private static void write(SeekableByteChannel out, ByteBuffer bytes) throws IOException {
        while (bytes.hasRemaining()) {
            out.write(bytes);
        }
    }

    /** One chunk's copy, made in memory (JMC and the JDK read a chunk whole too). */
    private static final class ChunkCopy {
        private final ChunkFile.Header header;
        private final ByteBuffer chunk;
        private final JfrOutput output;
        private final Map<Long, String> replacedTypes = new HashMap<>();
        private final Map<Integer, Integer> newPositions = new HashMap<>();
        private final Set<Integer> checkpoints = new HashSet<>();
        private final Map<String, Long> removedSamples = new LinkedHashMap<>();
        private long removedSettings;
        private long activeSettingType = -1;
        private int settingIdField = -1;

        ChunkCopy(ChunkFile.Header header, ByteBuffer chunk) {
            this.header = header;
            this.chunk = chunk;
            this.output = new JfrOutput(chunk.limit());
        }

        ByteBuffer output() {
            return output.asBuffer();
        }

        void run() {
            JfrInput in = new JfrInput(chunk);
            in.position((int) header.metadataOffset());
            ChunkMetadata metadata = ChunkMetadata.read(in);
            for (String name : REPLACED_SAMPLES) {
                long id = metadata.idOf(name);
                if (id >= 0) {
                    replacedTypes.put(id, name);
                }
            }
            ChunkMetadata.Type activeSetting = metadata.type(JdkChunkWriter.ACTIVE_SETTING);
            if (activeSetting != null && settingIdIsReadable(metadata, activeSetting)) {
                activeSettingType = activeSetting.id();
                settingIdField = activeSetting.fieldIndex("id");
            }
            output.putBytes(chunk.array(), 0, ChunkFile.HEADER_BYTES);
            int size = (int) header.size();
            for (int position = ChunkFile.HEADER_BYTES; position < size; ) {
                in.position(position);
                int eventSize = in.readInt();
                if (eventSize <= 0 || eventSize > size - position) {
                    throw corrupt("its event at byte " + position + " declares a size of " + eventSize);
                }
                long type = in.readLong();
                copyEvent(in, position, eventSize, type);
                position += eventSize;
            }
            patchHeader();
        }

        private void copyEvent(JfrInput in, int position, int eventSize, long type) {
            String replaced = replacedTypes.get(type);
            if (replaced != null) {
                removedSamples.merge(replaced, 1L, Long::sum);
                return;
            }
            if (type == activeSettingType && replacedTypes.containsKey(settingFor(in))) {
                removedSettings++;
                return;
            }
            newPositions.put(position, output.size());
            if (type == CHECKPOINT) {
                copyCheckpoint(in, position, eventSize);
            } else {
                output.putBytes(chunk.array(), position, eventSize);
            }
        }

        /** The event type an active setting is of: the fields before its id are numbers. */
        private long settingFor(JfrInput in) {
            for (int i = 0; i < settingIdField; i++) {
                in.readLong();
            }
            return in.readLong();
        }

        private void copyCheckpoint(JfrInput in, int position, int eventSize) {
            long start = in.readLong();
            long duration = in.readLong();
            long delta = in.readLong();
            int rest = in.position();
            long newDelta = 0;
            if (delta != 0) {
                long previous = position + delta;
                Integer moved = previous >= 0 && previous < position ? newPositions.get((int) previous) : null;
                if (moved == null || !checkpoints.contains((int) previous)) {
                    throw corrupt("its constant-pool event at byte " + position + " leads back to byte " + previous
                            + ", where none starts");
                }
                newDelta = moved - output.size();
            }
            checkpoints.add(position);
            JfrOutput body = new JfrOutput(eventSize + 16);
            body.putLong(CHECKPOINT).putLong(start).putLong(duration).putLong(newDelta)
                    .putBytes(chunk.array(), rest, position + eventSize - rest);
            output.putSized(body);
        }

        private void patchHeader() {
            Integer constantPool = newPositions.get((int) header.constantPoolOffset());
            if (constantPool == null || !checkpoints.contains((int) header.constantPoolOffset())) {
                throw corrupt("its header's constant-pool offset " + header.constantPoolOffset()
                        + " is not where a constant-pool event starts");
            }
            Integer metadata = newPositions.get((int) header.metadataOffset());
            if (metadata == null) {
                throw corrupt("its header's metadata offset " + header.metadataOffset()
                        + " is not where an event starts");
            }
            ByteBuffer bytes = output.asBuffer();
            bytes.putLong(8, output.size());
            bytes.putLong(16, constantPool);
            bytes.putLong(24, metadata);
        }

        private static boolean settingIdIsReadable(ChunkMetadata metadata, ChunkMetadata.Type activeSetting) {
            int idField = activeSetting.fieldIndex("id");
            if (idField < 0) {
                return false;
            }
            for (ChunkMetadata.Field field : activeSetting.fields().subList(0, idField + 1)) {
                ChunkMetadata.Type type = metadata.type(field.typeId());
                boolean number = type != null && List.of("long", "int", "short", "byte").contains(type.name());
                if (field.array() || !(field.constantPool() || number)) {
                    return false;
                }
            }
            return true;
        }

        private CorruptChunkException corrupt(String problem) {
            return new CorruptChunkException("the chunk at byte " + header.fileOffset() + " is corrupt: " + problem);
        }
    }
}
