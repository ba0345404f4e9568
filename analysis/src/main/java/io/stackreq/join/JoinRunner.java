package io.stackreq.join;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

import io.stackreq.model.InputException;
import io.stackreq.model.RecordingContents;
import io.stackreq.model.RecordingReader;
import io.stackreq.model.SampleFileHeader;
import io.stackreq.model.SampleSource;

/** Reads a recording and (optionally) its samples, and joins them into listeners. */
public final class JoinRunner {

    /** Makes the listeners once the metric and the sample file's header are known. */
    @FunctionalInterface
    public interface ListenerFactory {
        /** @param header the samples' header, or null when the events are used alone */
        List<JoinListener> create(RecordingContents recording, Metric metric, SampleFileHeader header);
    }

    private JoinRunner() {
    }

    /**
     * Reads the recording and opens the samples: the events of one requester of
     * {@code inputs.recording()}, to join with {@code inputs.samples()}, or to count when there are
     * no samples. The caller makes its listeners from what the result says, then joins.
     */
    public static PreparedJoin prepare(JoinInputs inputs) {
        inputs.checkOptions();
        RecordingContents everything = RecordingReader.read(inputs.recording());
        if (inputs.samples() == null) {
            String requester = RequesterChoice.choose(everything, inputs.requester(), Optional.empty());
            return new PreparedJoin(everything, requester, Metric.eventCount(), null, null);
        }
        SampleSource samples = SampleSource.open(inputs.samples(), inputs.jfrSamples());
        try {
            if (inputs.metric() != null && samples.format().equals(SampleSource.JFR)) {
                throw new InputException("--metric is for perf agent sample files: weigh the samples of "
                        + inputs.samples() + " with --weight FIELD");
            }
            String requester = RequesterChoice.choose(everything, inputs.requester(), samples.requester());
            Metric metric = Metric.forSamples(inputs.metric(), samples.header(), inputs.samples().toString());
            return new PreparedJoin(everything, requester, metric, inputs.samples(), samples);
        } catch (RuntimeException e) {
            try {
                samples.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** Joins {@code inputs} into {@code listeners}, which need nothing from the samples' header. */
    public static JoinOutcome run(JoinInputs inputs, List<? extends JoinListener> listeners) {
        try (PreparedJoin join = prepare(inputs)) {
            return join.join(listeners);
        }
    }

    /** Joins {@code inputs} into the listeners {@code listeners} makes from the samples' header. */
    public static JoinOutcome run(JoinInputs inputs, ListenerFactory listeners) {
        try (PreparedJoin join = prepare(inputs)) {
            return join.join(listeners.create(join.recording(), join.metric(), join.header()));
        }
    }
}
