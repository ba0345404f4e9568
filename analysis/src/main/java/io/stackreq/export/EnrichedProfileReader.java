package io.stackreq.export;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

import org.openjdk.jmc.common.IMCStackTrace;
import org.openjdk.jmc.common.IMCThread;
import org.openjdk.jmc.common.unit.IQuantity;
import org.openjdk.jmc.common.unit.UnitLookup;
import org.openjdk.jmc.flightrecorder.JfrAttributes;
import org.openjdk.jmc.flightrecorder.parser.ValueField;

import io.stackreq.model.InputException;
import io.stackreq.model.RecordingReader;
import io.stackreq.output.EnrichedRecordingWriter;

/**
 * Reads the {@value EnrichedRecordingWriter#EVENT_NAME} events of a recording {@code enrich} (or
 * {@code profile}) wrote into a {@link StackProfile}: each event is one matched sample, its
 * counter fields the values. The recording keeps no sample period, so the profile has none. The
 * events stream through: memory holds the distinct stacks, not the events.
 */
public final class EnrichedProfileReader {
    private EnrichedProfileReader() {
    }

    /** One counter field of the event type. */
    private record Counter(String name, boolean nanoseconds, int field) {
        long valueOf(Object[] values) {
            if (!(values[field] instanceof IQuantity quantity)) {
                throw new InputException("counter " + name + " of a " + EnrichedRecordingWriter.EVENT_NAME
                        + " event holds " + values[field] + ", not a number");
            }
            return nanoseconds ? quantity.clampedLongValueIn(UnitLookup.NANOSECOND)
                    : Math.round(quantity.doubleValue());
        }
    }

    /** The profile being summed: made at the first event, which names the leader. */
    private static final class Accumulator {
        StackProfile profile;
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
    }

    /**
     * @return the profile, or empty when the recording has no {@value EnrichedRecordingWriter#EVENT_NAME} event
     * @throws InputException when the file is not a readable recording
     */
    public static Optional<StackProfile> read(Path file) {
        Accumulator sums = new Accumulator();
        RecordingReader.stream(file, Map.of(EnrichedRecordingWriter.EVENT_NAME, fields -> chunk(fields, sums)));
        if (sums.profile == null) {
            return Optional.empty();
        }
        return Optional.of(sums.profile.withTimeSpan(sums.first, sums.last - sums.first));
    }

    private static Consumer<Object[]> chunk(List<ValueField> fields, Accumulator sums) {
        int startTime = RecordingReader.fieldIndex(fields, JfrAttributes.START_TIME);
        int stackTrace = RecordingReader.fieldIndex(fields, JfrAttributes.EVENT_STACKTRACE);
        int thread = RecordingReader.fieldIndex(fields, JfrAttributes.EVENT_THREAD);
        int leaderField = RecordingReader.fieldIndex(fields, "leader");
        int tid = RecordingReader.fieldIndex(fields, "tid");
        List<List<Counter>> counters = new ArrayList<>(1);
        return values -> {
            long time = ((IQuantity) values[startTime]).clampedLongValueIn(UnitLookup.EPOCH_NS);
            sums.first = Math.min(sums.first, time);
            sums.last = Math.max(sums.last, time);
            if (counters.isEmpty()) {
                String leader = leaderField < 0 ? null : String.valueOf(values[leaderField]);
                counters.add(counters(fields, leader));
                if (sums.profile == null) {
                    sums.profile = new StackProfile(description(counters.get(0)));
                }
            }
            IMCStackTrace trace = stackTrace < 0 ? null : (IMCStackTrace) values[stackTrace];
            if (trace == null) {
                return;
            }
            List<Counter> chunkCounters = counters.get(0);
            long[] sample = new long[chunkCounters.size() + 1];
            for (int i = 0; i < chunkCounters.size(); i++) {
                sample[i] = chunkCounters.get(i).valueOf(values);
            }
            sample[chunkCounters.size()] = 1;
            IMCThread eventThread = thread < 0 ? null : (IMCThread) values[thread];
            sums.profile.add(RecordingReader.frames(trace), new StackProfile.ThreadId(
                    eventThread == null || eventThread.getThreadName() == null ? "[unknown thread]"
                            : eventThread.getThreadName(),
                    eventThread == null ? null : eventThread.getThreadId(),
                    osThreadId(tid < 0 ? null : values[tid])), sample);
        };
    }

    private static StackProfile.Description description(List<Counter> counters) {
        List<StackProfile.ValueKind> kinds = new ArrayList<>();
        for (Counter counter : counters) {
            kinds.add(new StackProfile.ValueKind(counter.name(), counter.nanoseconds() ? "nanoseconds" : "count"));
        }
        kinds.add(StackProfile.SAMPLES);
        return new StackProfile.Description(kinds, counters.isEmpty() ? null : kinds.get(0), 0, 0, 0);
    }

    /**
     * JMC reads a plain long field as a number or as a quantity, depending on its annotations; a
     * negative one is the unknown tid of a JFR sample.
     */
    private static Long osThreadId(Object value) {
        Long tid = value instanceof IQuantity quantity ? Long.valueOf(quantity.longValue())
                : value instanceof Number number ? Long.valueOf(number.longValue()) : null;
        return tid == null || tid < 0 ? null : tid;
    }

    /** The counter fields, named by their labels (the perf event names), the leader first. */
    private static List<Counter> counters(List<ValueField> fields, String leader) {
        List<Counter> counters = new ArrayList<>();
        for (int i = 0; i < fields.size(); i++) {
            String fieldName = fields.get(i).getIdentifier();
            String label = fields.get(i).getName();
            if (EnrichedRecordingWriter.FIXED_FIELDS.contains(fieldName) || label == null
                    || !EnrichedRecordingWriter.fieldName(label).equals(fieldName)) {
                continue;
            }
            Counter counter = new Counter(label, fields.get(i).getContentType() == UnitLookup.TIMESPAN, i);
            counters.add(label.equals(leader) ? 0 : counters.size(), counter);
        }
        return counters;
    }
}
