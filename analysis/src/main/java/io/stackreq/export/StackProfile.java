package io.stackreq.export;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.stackreq.model.Frame;

/**
 * Matched samples summed by stack and thread, with one value per sample type: what a pprof or
 * OTLP profile holds. Memory grows with the distinct stacks, not with the samples.
 */
public final class StackProfile {
    /** The type every profile ends with: one per matched sample. */
    public static final ValueKind SAMPLES = new ValueKind("samples", "count");

    /**
     * What one value measures.
     *
     * @param type the counter ({@code task-clock}) or {@code samples}
     * @param unit {@code nanoseconds} or {@code count}, as pprof readers name units
     */
    public record ValueKind(String type, String unit) {
        public ValueKind {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(unit, "unit");
        }
    }

    /**
     * The thread a stack ran on. Both formats label samples with it under the same keys: the
     * OpenTelemetry attribute names {@value #NAME_KEY} and {@value #ID_KEY} (the Java thread id),
     * and {@value #OS_ID_KEY} for the OS thread id.
     *
     * @param name         the thread's name, never null
     * @param javaThreadId the Java thread id, or null when the recording has none
     * @param osThreadId   the OS thread id, or null when not known
     */
    public record ThreadId(String name, Long javaThreadId, Long osThreadId) {
        public static final String NAME_KEY = "thread.name";
        public static final String ID_KEY = "thread.id";
        public static final String OS_ID_KEY = "thread.os_id";

        public ThreadId {
            Objects.requireNonNull(name, "name");
        }

        /** The ids that are known, by key. */
        public Map<String, Long> ids() {
            Map<String, Long> ids = new LinkedHashMap<>();
            if (javaThreadId != null) {
                ids.put(ID_KEY, javaThreadId);
            }
            if (osThreadId != null) {
                ids.put(OS_ID_KEY, osThreadId);
            }
            return ids;
        }
    }

    /** @param frames top frame first */
    public record StackKey(List<Frame> frames, ThreadId thread) {
    }

    /**
     * @param valueKinds     what every sample's values measure, in order; the last is {@link #SAMPLES}
     * @param periodKind     the event that triggered the samples, or null when unknown
     * @param period         how many of {@code periodKind} trigger one sample, 0 when unknown
     * @param startEpochNanos when the profile starts, nanoseconds since the epoch
     * @param durationNanos  how long it covers
     */
    public record Description(List<ValueKind> valueKinds, ValueKind periodKind, long period, long startEpochNanos,
            long durationNanos) {
        public Description {
            valueKinds = List.copyOf(valueKinds);
            if (valueKinds.isEmpty() || !valueKinds.get(valueKinds.size() - 1).equals(SAMPLES)) {
                throw new IllegalArgumentException("value kinds must end with " + SAMPLES + ": " + valueKinds);
            }
        }
    }

    private final Description description;
    private final Map<StackKey, long[]> values;
    private long samples;

    public StackProfile(Description description) {
        this(description, new LinkedHashMap<>(), 0);
    }

    private StackProfile(Description description, Map<StackKey, long[]> values, long samples) {
        this.description = description;
        this.values = values;
        this.samples = samples;
    }

    /**
     * This profile's sums with another time span, for a reader that learns the span only after the
     * last sample; this profile must not be added to afterwards.
     */
    public StackProfile withTimeSpan(long startEpochNanos, long durationNanos) {
        return new StackProfile(new Description(description.valueKinds(), description.periodKind(),
                description.period(), startEpochNanos, durationNanos), values, samples);
    }

    /** Adds one sample; {@code sampleValues} holds one value per value kind. */
    public void add(List<Frame> frames, ThreadId thread, long... sampleValues) {
        if (sampleValues.length != description.valueKinds().size()) {
            throw new IllegalArgumentException(sampleValues.length + " values for "
                    + description.valueKinds().size() + " value kinds");
        }
        long[] sums = values.computeIfAbsent(new StackKey(frames, thread), key -> new long[sampleValues.length]);
        for (int i = 0; i < sampleValues.length; i++) {
            sums[i] += sampleValues[i];
        }
        samples++;
    }

    public Description description() {
        return description;
    }

    /** Summed values by stack and thread, in the order stacks were first seen. */
    public Map<StackKey, long[]> values() {
        return Collections.unmodifiableMap(values);
    }

    /** Samples added. */
    public long samples() {
        return samples;
    }
}
