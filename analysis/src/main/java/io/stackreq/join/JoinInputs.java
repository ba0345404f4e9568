package io.stackreq.join;

import java.nio.file.Path;

import io.stackreq.model.InputException;
import io.stackreq.model.JfrSampleSpec;

/**
 * What a join reads.
 *
 * @param recording  the recording with the stack-trace events
 * @param samples    the perf agent's sample file or a JFR file with sample events, or null to weigh every event 1
 * @param metric     the perf counter to weigh by, or null for the sample file's leader
 * @param jfrSamples which events of a JFR file are the samples, and their fields
 * @param requester  whose stack-trace events to join, or null for the only one or the one the samples come from
 */
public record JoinInputs(Path recording, Path samples, String metric, JfrSampleSpec jfrSamples, String requester) {

    /**
     * @throws InputException when an option about samples comes without samples
     */
    public void checkOptions() {
        if (samples == null) {
            String options = metric != null ? "--metric " + metric : jfrSamples.options();
            if (!options.isEmpty()) {
                throw new InputException(options + " needs --samples FILE (without samples every event weighs 1)");
            }
        }
    }

    /** A recording and (or null) a sample file, each read as it comes. */
    public static JoinInputs of(Path recording, Path samples) {
        return new JoinInputs(recording, samples, null, JfrSampleSpec.defaults(), null);
    }
}
