package io.stackreq.join;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import io.stackreq.model.InputException;
import io.stackreq.model.RecordingContents;
import io.stackreq.model.RecordingReader;

/**
 * Whose stack-trace events to join. Several profilers can request stack traces in one JVM (say
 * Datadog's and stackreq's perf agent); each counts its userData from 1, so a sample of one would
 * match the other's events. The events name their requester, the samples tell whose they are.
 */
final class RequesterChoice {
    private RequesterChoice() {
    }

    /**
     * @param requested the requester the user named, or null
     * @param ofSamples the requester the samples come from, when known
     * @return the requester whose events to join, as {@link RecordingContents#requesterEvents()} names it
     * @throws InputException when {@code requested} has no events, or the recording has events of
     *                        several requesters and neither the user nor the samples say which
     */
    static String choose(RecordingContents recording, String requested, Optional<String> ofSamples) {
        Map<String, Long> events = recording.requesterEvents();
        if (requested != null) {
            if (!events.containsKey(requested)) {
                throw new InputException("no " + RecordingReader.STACK_TRACE_REQUEST + " event in " + recording.file()
                        + " was requested by '" + requested + "' (" + list(events) + ")");
            }
            return requested;
        }
        if (events.size() == 1) {
            return events.keySet().iterator().next();
        }
        if (ofSamples.isPresent() && events.containsKey(ofSamples.get())) {
            return ofSamples.get();
        }
        throw new InputException(recording.file() + " has stack-trace events of " + events.size() + " requesters ("
                + list(events) + "): choose whose to join with --requester NAME");
    }

    /** "name: count, ..." by name; events that name no requester as "unnamed" (--requester ''). */
    private static String list(Map<String, Long> events) {
        return events.entrySet().stream()
                .map(requester -> String.format(Locale.ROOT, "%s: %,d", displayName(requester.getKey()),
                        requester.getValue()))
                .collect(Collectors.joining(", "));
    }

    private static String displayName(String requester) {
        return requester.isEmpty() ? "unnamed (--requester '')" : requester;
    }
}
