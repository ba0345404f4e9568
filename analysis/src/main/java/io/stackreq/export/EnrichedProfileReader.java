package io.stackreq.export;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.openjdk.jmc.common.IDescribable;
import org.openjdk.jmc.common.IMCStackTrace;
import org.openjdk.jmc.common.IMCThread;
import org.openjdk.jmc.common.item.IAccessorKey;
import org.openjdk.jmc.common.item.IItem;
import org.openjdk.jmc.common.item.IItemCollection;
import org.openjdk.jmc.common.item.IItemIterable;
import org.openjdk.jmc.common.item.IMemberAccessor;
import org.openjdk.jmc.common.item.IType;
import org.openjdk.jmc.common.item.ItemFilters;
import org.openjdk.jmc.common.unit.IQuantity;
import org.openjdk.jmc.common.unit.UnitLookup;
import org.openjdk.jmc.flightrecorder.JfrAttributes;

import io.stackreq.model.InputException;
import io.stackreq.model.RecordingReader;
import io.stackreq.output.EnrichedRecordingWriter;

/**
 * Reads the {@value EnrichedRecordingWriter#EVENT_NAME} events of a recording {@code enrich} (or
 * {@code profile}) wrote into a {@link StackProfile}: each event is one matched sample, its
 * counter fields the values. The recording keeps no sample period, so the profile has none.
 */
public final class EnrichedProfileReader {
    private EnrichedProfileReader() {
    }

    /** One counter field of the event type. */
    private record Counter(String name, boolean nanoseconds, IMemberAccessor<?, IItem> accessor) {
        long valueOf(IItem item) {
            Object value = accessor.getMember(item);
            if (!(value instanceof IQuantity quantity)) {
                throw new InputException("counter " + name + " of a " + EnrichedRecordingWriter.EVENT_NAME
                        + " event holds " + value + ", not a number");
            }
            return nanoseconds ? quantity.clampedLongValueIn(UnitLookup.NANOSECOND)
                    : Math.round(quantity.doubleValue());
        }
    }

    /**
     * @return the profile, or empty when the recording has no {@value EnrichedRecordingWriter#EVENT_NAME} event
     * @throws InputException when the file is not a readable recording
     */
    public static Optional<StackProfile> read(Path file) {
        IItemCollection items = RecordingReader.load(file, List.of(EnrichedRecordingWriter.EVENT_NAME))
                .apply(ItemFilters.type(EnrichedRecordingWriter.EVENT_NAME));
        if (!items.hasItems()) {
            return Optional.empty();
        }
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        String leader = null;
        List<Counter> counters = null;
        for (IItemIterable iterable : items) {
            IType<IItem> type = iterable.getType();
            IMemberAccessor<IQuantity, IItem> startTime = JfrAttributes.START_TIME.getAccessor(type);
            IMemberAccessor<?, IItem> leaderField = RecordingReader.accessor(type, "leader");
            for (IItem item : iterable) {
                long time = startTime.getMember(item).clampedLongValueIn(UnitLookup.EPOCH_NS);
                first = Math.min(first, time);
                last = Math.max(last, time);
                if (leader == null && leaderField != null) {
                    leader = String.valueOf(leaderField.getMember(item));
                }
            }
            if (counters == null) {
                counters = counters(type, leader);
            }
        }
        List<StackProfile.ValueKind> kinds = new ArrayList<>();
        for (Counter counter : counters) {
            kinds.add(new StackProfile.ValueKind(counter.name(), counter.nanoseconds() ? "nanoseconds" : "count"));
        }
        kinds.add(StackProfile.SAMPLES);
        StackProfile profile = new StackProfile(new StackProfile.Description(kinds,
                counters.isEmpty() ? null : kinds.get(0), 0, first, last - first));
        for (IItemIterable iterable : items) {
            add(iterable, counters(iterable.getType(), leader), profile);
        }
        return Optional.of(profile);
    }

    private static void add(IItemIterable iterable, List<Counter> counters, StackProfile profile) {
        IType<IItem> type = iterable.getType();
        IMemberAccessor<IMCStackTrace, IItem> stackTrace = JfrAttributes.EVENT_STACKTRACE.getAccessor(type);
        IMemberAccessor<IMCThread, IItem> thread = JfrAttributes.EVENT_THREAD.getAccessor(type);
        IMemberAccessor<?, IItem> tid = RecordingReader.accessor(type, "tid");
        for (IItem item : iterable) {
            IMCStackTrace trace = stackTrace == null ? null : stackTrace.getMember(item);
            if (trace == null) {
                continue;
            }
            long[] values = new long[counters.size() + 1];
            for (int i = 0; i < counters.size(); i++) {
                values[i] = counters.get(i).valueOf(item);
            }
            values[counters.size()] = 1;
            IMCThread eventThread = thread == null ? null : thread.getMember(item);
            profile.add(RecordingReader.frames(trace), new StackProfile.ThreadId(
                    eventThread == null || eventThread.getThreadName() == null ? "[unknown thread]"
                            : eventThread.getThreadName(),
                    eventThread == null ? null : eventThread.getThreadId(),
                    osThreadId(tid == null ? null : tid.getMember(item))), values);
        }
    }

    /** JMC reads a plain long field as a number or as a quantity, depending on its annotations. */
    private static Long osThreadId(Object value) {
        if (value instanceof IQuantity quantity) {
            return quantity.longValue();
        }
        return value instanceof Number number ? number.longValue() : null;
    }

    /** The counter fields, named by their labels (the perf event names), the leader first. */
    private static List<Counter> counters(IType<IItem> type, String leader) {
        List<Counter> counters = new ArrayList<>();
        for (Map.Entry<IAccessorKey<?>, ? extends IDescribable> field : type.getAccessorKeys().entrySet()) {
            String fieldName = field.getKey().getIdentifier();
            String label = field.getValue().getName();
            if (EnrichedRecordingWriter.FIXED_FIELDS.contains(fieldName) || label == null
                    || !EnrichedRecordingWriter.fieldName(label).equals(fieldName)) {
                continue;
            }
            Counter counter = new Counter(label, field.getKey().getContentType() == UnitLookup.TIMESPAN,
                    type.getAccessor(field.getKey()));
            counters.add(label.equals(leader) ? 0 : counters.size(), counter);
        }
        return counters;
    }
}
