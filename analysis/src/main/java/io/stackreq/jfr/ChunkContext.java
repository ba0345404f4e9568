package io.stackreq.jfr;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import io.stackreq.model.InputException;

/**
 * What a chunk written to go beside a recording's chunks must agree with or stay clear of.
 * <ul>
 * <li>Type ids: an event type the recording's first chunk declares keeps that chunk's id, every
 * other type gets an id no chunk of the recording uses. {@code jfr summary} counts the events of
 * every chunk under the first chunk's ids: a sample under another id would go uncounted or be
 * counted as another type's. The types of constant pools must not share the JVM's ids: the JDK's
 * parser takes a constant whose key the previous chunk resolved for the same type id to be that
 * constant (the JVM's keys are unique across its chunks), so a stack trace 1 of this chunk would
 * read as the JVM's stack trace 1.</li>
 * <li>The start time: JMC core loads one chunk per start time and drops the others.</li>
 * <li>The metadata id: the JDK's parser keeps the previous chunk's types when the id is the same.</li>
 * </ul>
 */
public final class ChunkContext {
    private static final long FIRST_FRESH_ID = 20;

    private final Map<String, Long> preferred;
    private final Set<Long> startTimes;
    private final Set<Long> metadataIds;
    private final Set<Long> used = new HashSet<>();
    private long next;

    private ChunkContext(Map<String, Long> preferred, long next, Set<Long> startTimes, Set<Long> metadataIds) {
        this.preferred = preferred;
        this.next = next;
        this.startTimes = startTimes;
        this.metadataIds = metadataIds;
    }

    /** For a chunk of its own. */
    public static ChunkContext alone() {
        return new ChunkContext(Map.of(), FIRST_FRESH_ID, Set.of(), Set.of());
    }

    /**
     * For a chunk to go beside those of {@code recording}.
     *
     * @throws InputException when the file cannot be read, or its chunks or their metadata are not JFR's
     */
    public static ChunkContext beside(Path recording) {
        Map<String, Long> first = new HashMap<>();
        Set<Long> starts = new HashSet<>();
        Set<Long> metadataIds = new HashSet<>();
        long max = FIRST_FRESH_ID;
        try (ChunkFile file = new ChunkFile(recording)) {
            boolean isFirst = true;
            for (ChunkFile.Header header : file.headers()) {
                starts.add(header.startNanos());
                ChunkMetadata metadata = file.metadata(header);
                metadataIds.add(metadata.metadataId());
                for (ChunkMetadata.Type type : metadata.types().values()) {
                    max = Math.max(max, type.id());
                    if (isFirst && type.isEvent()) {
                        first.putIfAbsent(type.name(), type.id());
                    }
                }
                isFirst = false;
            }
        } catch (IOException | CorruptChunkException e) {
            throw new InputException("cannot read recording " + recording + ": " + e.getMessage(), e);
        }
        return new ChunkContext(first, max + 1, starts, metadataIds);
    }

    long idFor(String typeName) {
        Long id = preferred.get(typeName);
        if (id != null && used.add(id)) {
            return id;
        }
        while (!used.add(next) || preferred.containsValue(next)) {
            next++;
        }
        return next++;
    }

    /** {@code wanted}, or the latest time before it that no chunk of the recording starts at. */
    long startTime(long wanted) {
        long start = wanted;
        while (startTimes.contains(start)) {
            start--;
        }
        return start;
    }

    /** A metadata id no chunk of the recording has (the JDK counts its own from 1). */
    long metadataId(long seed) {
        long id = seed ^ 0x5374_6163_6b72_6571L;
        while (id <= 0 || metadataIds.contains(id)) {
            id = id * 31 + 17;
        }
        return id;
    }
}
