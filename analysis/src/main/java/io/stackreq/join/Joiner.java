package io.stackreq.join;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import io.stackreq.join.JoinedSample.Status;
import io.stackreq.model.InputException;
import io.stackreq.model.RecordingContents;
import io.stackreq.model.SampleFileReader;
import io.stackreq.model.SampleFileSummary;
import io.stackreq.model.StackEvent;

/**
 * Joins perf samples with stack-trace events by userData, streaming the sample file: only the
 * events (from the recording) and the set of matched userData values are held in memory.
 */
public final class Joiner {
    private final RecordingContents recording;
    private final Map<Long, StackEvent> eventsByUserData;
    private final long duplicateEvents;

    public Joiner(RecordingContents recording) {
        this.recording = recording;
        Map<Long, StackEvent> byUserData = new HashMap<>(recording.events().size() * 2);
        long duplicates = 0;
        for (StackEvent event : recording.events()) {
            if (byUserData.putIfAbsent(event.userData(), event) != null) {
                duplicates++;
            }
        }
        this.eventsByUserData = byUserData;
        this.duplicateEvents = duplicates;
    }

    /** Without a sample file: every event is one sample of weight 1. */
    public JoinQuality joinEventsAlone(List<JoinListener> listeners) {
        long matched = 0;
        long failed = 0;
        long biased = 0;
        for (StackEvent event : recording.events()) {
            Status status = event.hasStack() ? Status.MATCHED : Status.FAILED_EVENT;
            if (status == Status.MATCHED) {
                matched++;
                biased += event.biased() ? 1 : 0;
            } else {
                failed++;
            }
            publish(listeners, new JoinedSample(null, event, 1, status));
        }
        return new JoinQuality(0, matched, matched, 0, 0, failed, failed, 0, Map.of(), 0,
                recording.events().size(), 0, duplicateEvents, biased, -1, false, false, recording.statistics());
    }

    /**
     * Streams the rest of {@code reader} (its header already read) and publishes every sample
     * with its event.
     *
     * @param metric the counter to weigh by, from {@link Metric#forSamples}
     * @throws InputException when the file is corrupt or no sample matches an event
     */
    public JoinQuality joinSamples(SampleFileReader reader, Metric metric, List<JoinListener> listeners) {
        Counts counts = new Counts();
        Set<Long> matchedUserData = new HashSet<>();
        reader.forEachSample(sample -> {
            counts.samples++;
            if (!sample.accepted()) {
                counts.rejected++;
                counts.rejectedByError.merge(sample.error(), 1L, Long::sum);
                publish(listeners, new JoinedSample(sample, null, 0, Status.REJECTED));
                return;
            }
            long weight = metric.weightOf(sample);
            StackEvent event = eventsByUserData.get(sample.userData());
            Status status;
            if (event == null) {
                status = Status.NO_EVENT;
                counts.noEvent++;
                counts.noEventWeight += weight;
            } else if (!matchedUserData.add(sample.userData())) {
                status = Status.DUPLICATE;
                counts.duplicates++;
            } else if (!event.hasStack()) {
                status = Status.FAILED_EVENT;
                counts.failedEvent++;
                counts.failedEventWeight += weight;
            } else {
                status = Status.MATCHED;
                counts.matched++;
                counts.matchedWeight += weight;
                counts.biased += event.biased() ? 1 : 0;
            }
            publish(listeners, new JoinedSample(sample, event, weight, status));
        });
        if (counts.matched == 0) {
            throw new InputException("no sample in " + reader.file() + " matches a stack trace in "
                    + recording.file() + " (" + counts.samples + " samples, " + counts.rejected + " rejected, "
                    + recording.events().size() + " events): were both written by the same run?");
        }
        SampleFileSummary summary = reader.summary().orElse(null);
        long eventsWithoutSample = eventsByUserData.size() - matchedUserData.size();
        return new JoinQuality(counts.samples, counts.matched, counts.matchedWeight, counts.noEvent,
                counts.noEventWeight, counts.failedEvent, counts.failedEventWeight, counts.rejected,
                counts.rejectedByError, counts.duplicates, recording.events().size(), eventsWithoutSample,
                duplicateEvents, counts.biased, summary == null ? -1 : summary.lost(), summary != null,
                reader.truncatedLastLine(), recording.statistics());
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
        long rejected;
        long duplicates;
        long biased;
        final Map<Integer, Long> rejectedByError = new TreeMap<>();
    }
}
