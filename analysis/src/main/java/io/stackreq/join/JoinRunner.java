package io.stackreq.join;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

import io.stackreq.model.InputException;
import io.stackreq.model.RecordingContents;
import io.stackreq.model.RecordingReader;
import io.stackreq.model.SampleFileHeader;
import io.stackreq.model.SampleSource;

/** Reads a recording and (optionally) its samples, and joins them into the given listeners. */
public final class JoinRunner {

    /** Makes the listeners once the metric and the sample file's header are known. */
    @FunctionalInterface
    public interface ListenerFactory {
        /** @param header the samples' header, or null when the events are used alone */
        List<JoinListener> create(RecordingContents recording, Metric metric, SampleFileHeader header);
    }

    private JoinRunner() {
    }

    /** Joins {@code inputs.recording()} with {@code inputs.samples()}, or counts its events when there are none. */
    public static JoinOutcome run(JoinInputs inputs, ListenerFactory listeners) {
        inputs.checkOptions();
        RecordingContents recording = RecordingReader.read(inputs.recording());
        Joiner joiner = new Joiner(recording);
        if (inputs.samples() == null) {
            Metric metric = Metric.eventCount();
            JoinQuality quality = joiner.joinEventsAlone(listeners.create(recording, metric, null));
            return new JoinOutcome(recording, null, null, metric, quality, new JoinScope(null, 0));
        }
        try (SampleSource samples = SampleSource.open(inputs.samples(), inputs.jfrSamples())) {
            if (inputs.metric() != null && samples.format().equals(SampleSource.JFR)) {
                throw new InputException("--metric is for perf agent sample files: weigh the samples of "
                        + inputs.samples() + " with --weight FIELD");
            }
            SampleFileHeader header = samples.header();
            Metric metric = Metric.forSamples(inputs.metric(), header, inputs.samples().toString());
            JoinQuality quality = joiner.joinSamples(samples, metric, listeners.create(recording, metric, header));
            return new JoinOutcome(recording, inputs.samples(), header, metric, quality,
                    new JoinScope(samples.format(), samples.undelegated()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
