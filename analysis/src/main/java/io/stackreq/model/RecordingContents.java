package io.stackreq.model;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the CLI takes from a recording.
 *
 * @param file       the recording
 * @param events     every {@code jdk.StackTraceRequest} event, in file order
 * @param statistics the last value of every numeric field of {@code stackreq.RequestStatistics}
 *                   (the counters are cumulative), empty when the recording has no such event
 */
public record RecordingContents(Path file, List<StackEvent> events, Map<String, Long> statistics) {

    public RecordingContents {
        events = List.copyOf(events);
        statistics = Collections.unmodifiableMap(new LinkedHashMap<>(statistics));
    }
}
