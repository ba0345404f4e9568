package io.stackreq.model;

import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import org.openjdk.jmc.common.unit.ContentType;
import org.openjdk.jmc.common.unit.IQuantity;
import org.openjdk.jmc.common.unit.LinearKindOfQuantity;
import org.openjdk.jmc.common.unit.UnitLookup;
import org.openjdk.jmc.flightrecorder.JfrAttributes;
import org.openjdk.jmc.flightrecorder.parser.ValueField;

/**
 * Samples recorded as JFR events by another profiler (Datadog's java-profiler in its
 * {@code jvmtistacks} mode: {@code datadog.ExecutionSample} and {@code datadog.MethodSample},
 * whose {@code correlationId} is the userData it passed to RequestStackTrace). Read twice with JMC
 * core, one event at a time: first which event types and fields the file holds, so that a wrong
 * choice fails before the join starts and the join's listeners know the metric; then the samples.
 * Memory never holds more than one chunk of the file.
 */
public final class JfrSampleFile implements SampleSource {
    /** Datadog's java-profiler: the requester of the stack traces its samples refer to. */
    public static final String DATADOG_LIBRARY = "libjavaProfiler.so";

    /** What the first pass learns of one event type: its events and its fields' content types. */
    private static final class HeldType {
        long events;
        final Map<String, ContentType<?>> fields = new LinkedHashMap<>();
    }

    private final Path file;
    private final List<String> types;
    private final String key;
    private final String weight;
    private final boolean weightInNanoseconds;
    private final SampleFileHeader header;
    private long undelegated;

    private JfrSampleFile(Path file, List<String> types, JfrSampleSpec spec, boolean weightInNanoseconds) {
        this.file = file;
        this.types = List.copyOf(types);
        this.key = spec.keyField();
        this.weight = spec.weight();
        this.weightInNanoseconds = weightInNanoseconds;
        String metric = spec.metricName();
        this.header = new SampleFileHeader(JFR, metric, List.of(metric),
                new SampleFileHeader.SamplePeriod(0, weightInNanoseconds ? "ns" : "count"), -1, "epoch");
    }

    /**
     * Reads which events {@code file} holds and checks {@code spec} against them.
     *
     * @throws InputException when the sample event types are not in the file, or the key or weight
     *                        field is missing or not a number
     */
    public static JfrSampleFile open(Path file, JfrSampleSpec spec) {
        Map<String, HeldType> held = new TreeMap<>();
        RecordingReader.stream(file, identifier -> fields -> {
            HeldType type = held.computeIfAbsent(identifier, name -> new HeldType());
            fields.forEach(field -> type.fields.put(field.getIdentifier(), field.getContentType()));
            return values -> type.events++;
        });
        List<String> types = spec.eventTypes().isEmpty() ? datadogTypes(file, held) : spec.eventTypes();
        for (String type : types) {
            // A JDK's recording declares all of its event types, those it has no events of too.
            if (!held.containsKey(type) || held.get(type).events == 0) {
                throw new InputException(file + " has no " + type + " events (" + eventsHeld(held) + ")");
            }
        }
        boolean nanoseconds = spec.weight() != null;
        for (String type : types) {
            checkNumber(file, type, held.get(type), spec.keyField());
            if (spec.weight() != null) {
                nanoseconds &= checkNumber(file, type, held.get(type), spec.weight()) == UnitLookup.TIMESPAN;
            }
        }
        return new JfrSampleFile(file, types, spec, nanoseconds);
    }

    /** The Datadog sample types the file has events of. */
    private static List<String> datadogTypes(Path file, Map<String, HeldType> held) {
        List<String> types = JfrSampleSpec.DATADOG_TYPES.stream()
                .filter(type -> held.containsKey(type) && held.get(type).events > 0).toList();
        if (types.isEmpty()) {
            throw new InputException(file + " has no " + String.join(" or ", JfrSampleSpec.DATADOG_TYPES)
                    + " events: name the sample events with --sample-event TYPE (" + eventsHeld(held) + ")");
        }
        return types;
    }

    /** "its events: type count, ...", most first. */
    private static String eventsHeld(Map<String, HeldType> held) {
        String list = held.entrySet().stream().filter(type -> type.getValue().events > 0)
                .sorted(Comparator.comparingLong((Map.Entry<String, HeldType> type) -> type.getValue().events)
                        .reversed())
                .map(type -> String.format(Locale.ROOT, "%s %,d", type.getKey(), type.getValue().events))
                .collect(Collectors.joining(", "));
        return list.isEmpty() ? "it holds no events" : "its events: " + list;
    }

    /** @return the field's content type, once checked to be a number */
    private static ContentType<?> checkNumber(Path file, String type, HeldType held, String field) {
        ContentType<?> contentType = held.fields.get(field);
        if (contentType == null) {
            throw new InputException(type + " events in " + file + " have no field '" + field + "' (their fields: "
                    + String.join(", ", held.fields.keySet()) + ")");
        }
        // Longs without a unit are raw numbers to JMC; ints, doubles and values with a unit
        // (durations, sizes) are linear quantities; a timestamp is neither.
        if (contentType != UnitLookup.RAW_NUMBER && contentType != UnitLookup.RAW_LONG
                && !(contentType instanceof LinearKindOfQuantity)) {
            throw new InputException("field '" + field + "' of " + type + " in " + file + " is not a number (it is "
                    + contentType.getIdentifier() + ")");
        }
        return contentType;
    }

    @Override
    public Path file() {
        return file;
    }

    @Override
    public String format() {
        return JFR;
    }

    /** One counter, named after the weight field or {@link JfrSampleSpec#COUNT}; in ns when the field is a duration. */
    @Override
    public SampleFileHeader header() {
        return header;
    }

    /**
     * Every sample event of the chosen types in file order, as a sample with one delta (its weight)
     * and no OS thread id (JFR names the thread; the stack-trace event has it too).
     */
    @Override
    public void forEachSample(Consumer<Sample> action) {
        long[] ordinal = {0};
        Map<String, RecordingReader.EventReceiver> receivers = new LinkedHashMap<>();
        for (String type : types) {
            receivers.put(type, fields -> samples(type, fields, ordinal, action));
        }
        RecordingReader.stream(file, receivers);
    }

    private Consumer<Object[]> samples(String type, List<ValueField> fields, long[] ordinal, Consumer<Sample> action) {
        int keyIndex = RecordingReader.fieldIndex(fields, key);
        int weightIndex = weight == null ? -1 : RecordingReader.fieldIndex(fields, weight);
        if (keyIndex < 0 || (weight != null && weightIndex < 0)) {
            // The first pass saw the field: only a chunk declaring the type anew can lack it.
            throw new InputException("a chunk of " + file + " declares " + type + " without the field '"
                    + (keyIndex < 0 ? key : weight) + "'");
        }
        int startTime = RecordingReader.fieldIndex(fields, JfrAttributes.START_TIME);
        String metric = header.leader();
        // Every sample of this type has the same overflow: one, shared, keeps a sample one object.
        Sample.Overflow overflow = new Sample.Overflow(type, 0, -1, 0);
        return values -> {
            ordinal[0]++;
            long userData = integer(values[keyIndex], type, key, ordinal[0]);
            if (userData == 0) {
                undelegated++;
                return;
            }
            long sampleWeight = weightIndex < 0 ? 1 : weightOf(values[weightIndex], type, ordinal[0]);
            IQuantity time = startTime < 0 ? null : (IQuantity) values[startTime];
            action.accept(new Sample(ordinal[0], userData, Sample.UNKNOWN_TID,
                    time == null ? 0 : time.clampedLongValueIn(UnitLookup.EPOCH_NS), overflow,
                    Map.of(metric, sampleWeight)));
        };
    }

    private long integer(Object value, String type, String field, long ordinal) {
        if (value instanceof Number number && number.doubleValue() == number.longValue()) {
            return number.longValue();
        }
        if (value instanceof IQuantity quantity && quantity.doubleValue() == quantity.longValue()) {
            return quantity.longValue();
        }
        throw new InputException(type + " event " + ordinal + " in " + file + ": field '" + field
                + "' is not an integer (" + value + ")");
    }

    private long weightOf(Object value, String type, long ordinal) {
        if (weightInNanoseconds && value instanceof IQuantity duration) {
            return duration.clampedLongValueIn(UnitLookup.NANOSECOND);
        }
        if (value instanceof IQuantity quantity) {
            return Math.round(quantity.doubleValue());
        }
        if (value instanceof Number number) {
            return Math.round(number.doubleValue());
        }
        throw new InputException(type + " event " + ordinal + " in " + file + ": field '" + weight
                + "' has no number (" + value + ")");
    }

    /** Not kept: a JFR file has no end record of the samples its writer lost. */
    @Override
    public Optional<SampleFileSummary> summary() {
        return Optional.empty();
    }

    /** JMC core reads whole chunks only; a chunk cut short is an error of its own. */
    @Override
    public boolean truncatedLastLine() {
        return false;
    }

    @Override
    public long undelegated() {
        return undelegated;
    }

    /** Datadog's library when every sample type is Datadog's, else unknown. */
    @Override
    public Optional<String> requester() {
        return types.stream().allMatch(type -> type.startsWith("datadog.")) ? Optional.of(DATADOG_LIBRARY)
                : Optional.empty();
    }

    /** Nothing held open: each pass opens the file anew. */
    @Override
    public void close() {
    }
}
