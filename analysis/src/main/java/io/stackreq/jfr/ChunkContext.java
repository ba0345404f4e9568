package io.stackreq.jfr;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
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
 * <li>The fields of the event types it shares with the recording (the JDK's {@code jdk.ActiveSetting}
 * lost its duration, thread and stack trace in JDK 25): JMC core keeps two types apart when their
 * fields differ, and its rules then miss the settings of the other.</li>
 * </ul>
 */
public final class ChunkContext {
    private static final long FIRST_FRESH_ID = 20;

    private final Map<String, Long> preferred;
    private final Map<String, ChunkMetadata.Type> firstEvents;
    private final Set<Long> startTimes;
    private final Set<Long> metadataIds;
    private final Set<Long> used = new HashSet<>();
    private long next;

    private ChunkContext(Map<String, ChunkMetadata.Type> firstEvents, long next, Set<Long> startTimes,
            Set<Long> metadataIds) {
        this.firstEvents = firstEvents;
        this.preferred = new HashMap<>();
        firstEvents.forEach((name, type) -> preferred.put(name, type.id()));
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
        Map<String, ChunkMetadata.Type> first = new HashMap<>();
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
                        first.putIfAbsent(type.name(), type);
                    }
                }
                isFirst = false;
            }
        } catch (IOException | CorruptChunkException e) {
            throw new InputException("cannot read recording " + recording + ": " + e.getMessage(), e);
        }
        return new ChunkContext(first, max + 1, starts, metadataIds);
    }

    /**
     * {@code mine} as the recording declares it: its fields in the recording's order (each one
     * {@code mine} has), its label and description; {@code mine} as it is when the recording does
     * not declare it or has a field {@code mine} does not know.
     */
    JfrType adopt(JfrType mine) {
        ChunkMetadata.Type theirs = firstEvents.get(mine.name());
        if (theirs == null) {
            return mine;
        }
        List<JfrType.Field> fields = new ArrayList<>();
        for (ChunkMetadata.Field field : theirs.fields()) {
            JfrType.Field known = mine.field(field.name());
            if (known == null) {
                return mine;
            }
            fields.add(known);
        }
        return new JfrType(mine.name(), mine.superType(), mine.simpleType(),
                theirs.label() == null ? mine.label() : theirs.label(),
                theirs.description() == null ? mine.description() : theirs.description(), mine.categories(), fields);
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
