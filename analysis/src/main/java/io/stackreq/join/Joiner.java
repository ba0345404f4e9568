package io.stackreq.join;

import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.stackreq.join.JoinedSample.Status;
import io.stackreq.model.InputException;
import io.stackreq.model.RecordingContents;
import io.stackreq.model.SampleFileSummary;
import io.stackreq.model.SampleSource;
import io.stackreq.model.StackEvent;

/**
 * Joins samples with stack-trace events by userData, streaming the samples: besides the
 * recording's compact events, only their order by userData (when the file's is not) and one bit
 * per event (matched or not) are held in memory.
 */
public final class Joiner {
    private final RecordingContents recording;
    /** Event indices by ascending userData, file order among equal ones; null when file order is that. */
    private final int[] byUserData;
    private final long duplicateEvents;

    public Joiner(RecordingContents recording) {
        this.recording = recording;
        this.byUserData = recording.userDataAscending() ? null : sortedByUserData(recording);
        long duplicates = 0;
        for (int i = 1; i < recording.eventCount(); i++) {
            if (userDataAt(i) == userDataAt(i - 1)) {
                duplicates++;
            }
        }
        this.duplicateEvents = duplicates;
    }

    /** Without a sample file: every event is one sample of weight 1. */
    public JoinQuality joinEventsAlone(List<JoinListener> listeners) {
        long matched = 0;
        long failed = 0;
        long biased = 0;
        for (int i = 0; i < recording.eventCount(); i++) {
            StackEvent event = recording.event(i);
            Status status = event.hasStack() ? Status.MATCHED : Status.FAILED_EVENT;
            if (status == Status.MATCHED) {
                matched++;
                biased += event.biased() ? 1 : 0;
            } else {
                failed++;
            }
            publish(listeners, new JoinedSample(null, event, 1, status));
        }
        JoinQuality.SampleCounts samples = new JoinQuality.SampleCounts(0, new JoinQuality.Tally(matched, matched),
                JoinQuality.Tally.NONE, new JoinQuality.Tally(failed, failed), Map.of(), 0);
        return new JoinQuality(samples, new JoinQuality.EventCounts(recording.eventCount(), 0, duplicateEvents, biased),
                JoinQuality.SampleFileEnd.NONE, recording.statistics());
    }

    /**
     * Streams the rest of {@code reader} (its header already read) and publishes every sample
     * with its event.
     *
     * @param metric the counter to weigh by, from {@link Metric#forSamples}
     * @throws InputException when the file is corrupt or no sample matches an event
     */
    public JoinQuality joinSamples(SampleSource reader, Metric metric, List<JoinListener> listeners) {
        Counts counts = new Counts();
        // By position in userData order: the first event of each userData is the one that counts.
        BitSet matchedEvents = new BitSet(recording.eventCount());
        reader.forEachSample(sample -> {
            counts.samples++;
            if (!sample.accepted()) {
                counts.rejectedByError.merge(sample.error(), 1L, Long::sum);
                publish(listeners, new JoinedSample(sample, null, 0, Status.REJECTED));
                return;
            }
            long weight = metric.weightOf(sample);
            int position = firstPositionOf(sample.userData());
            StackEvent event = position < 0 ? null : recording.event(eventAt(position));
            Status status;
            if (event == null) {
                status = Status.NO_EVENT;
                counts.noEvent++;
                counts.noEventWeight += weight;
            } else if (matchedEvents.get(position)) {
                status = Status.DUPLICATE;
                counts.duplicates++;
            } else {
                matchedEvents.set(position);
                if (!event.hasStack()) {
                    status = Status.FAILED_EVENT;
                    counts.failedEvent++;
                    counts.failedEventWeight += weight;
                } else {
                    status = Status.MATCHED;
                    counts.matched++;
                    counts.matchedWeight += weight;
                    counts.biased += event.biased() ? 1 : 0;
                }
            }
            publish(listeners, new JoinedSample(sample, event, weight, status));
        });
        if (counts.matched == 0) {
            throw new InputException("no sample in " + reader.file() + " matches a stack trace in "
                    + recording.file() + " (" + counts.samples + " samples, " + counts.rejected() + " rejected, "
                    + recording.eventCount() + " events): were both written by the same run?");
        }
        SampleFileSummary summary = reader.summary().orElse(null);
        long eventsWithoutSample = recording.eventCount() - duplicateEvents - matchedEvents.cardinality();
        JoinQuality.SampleCounts samples = new JoinQuality.SampleCounts(counts.samples,
                new JoinQuality.Tally(counts.matched, counts.matchedWeight),
                new JoinQuality.Tally(counts.noEvent, counts.noEventWeight),
                new JoinQuality.Tally(counts.failedEvent, counts.failedEventWeight), counts.rejectedByError,
                counts.duplicates);
        JoinQuality.EventCounts events = new JoinQuality.EventCounts(recording.eventCount(), eventsWithoutSample,
                duplicateEvents, counts.biased);
        JoinQuality.SampleFileEnd end = new JoinQuality.SampleFileEnd(summary == null ? -1 : summary.lost(),
                summary != null, reader.truncatedLastLine());
        return new JoinQuality(samples, events, end, recording.statistics());
    }

    /** The first position in userData order with {@code userData}, or -1 when no event has it. */
    private int firstPositionOf(long userData) {
        int low = 0;
        int high = recording.eventCount();
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (userDataAt(middle) < userData) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return low < recording.eventCount() && userDataAt(low) == userData ? low : -1;
    }

    private int eventAt(int position) {
        return byUserData == null ? position : byUserData[position];
    }

    private long userDataAt(int position) {
        return recording.userData(eventAt(position));
    }

    /** Event indices sorted by userData; a merge sort, so equal userData keep their file order. */
    private static int[] sortedByUserData(RecordingContents recording) {
        int count = recording.eventCount();
        int[] order = new int[count];
        for (int i = 0; i < count; i++) {
            order[i] = i;
        }
        int[] buffer = new int[count];
        for (int width = 1; width < count; width *= 2) {
            for (int low = 0; low < count - width; low += 2 * width) {
                int middle = low + width;
                int high = Math.min(low + 2 * width, count);
                int left = low;
                int right = middle;
                int out = low;
                while (left < middle && right < high) {
                    buffer[out++] = recording.userData(order[right]) < recording.userData(order[left])
                            ? order[right++] : order[left++];
                }
                while (left < middle) {
                    buffer[out++] = order[left++];
                }
                while (right < high) {
                    buffer[out++] = order[right++];
                }
                System.arraycopy(buffer, low, order, low, high - low);
            }
        }
        return order;
    }

    private static void publish(List<JoinListener> listeners, JoinedSample joined) {
        for (JoinListener listener : listeners) {
            listener.accept(joined);
        }
    }

    private static final class Counts {
        long samples;
        long matched;
        long matchedWeight;
        long noEvent;
        long noEventWeight;
        long failedEvent;
        long failedEventWeight;
        long duplicates;
        long biased;
        final Map<Integer, Long> rejectedByError = new TreeMap<>();

        long rejected() {
            return rejectedByError.values().stream().mapToLong(Long::longValue).sum();
        }
    }
}
