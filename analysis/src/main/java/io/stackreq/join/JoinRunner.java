package io.stackreq.join;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

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

    /**
     * Joins the events of one requester of {@code inputs.recording()} with {@code inputs.samples()},
     * or counts them when there are no samples.
     */
    public static JoinOutcome run(JoinInputs inputs, ListenerFactory listeners) {
        inputs.checkOptions();
        RecordingContents everything = RecordingReader.read(inputs.recording());
        if (inputs.samples() == null) {
            String requester = RequesterChoice.choose(everything, inputs.requester(), Optional.empty());
            RecordingContents recording = everything.ofRequester(requester);
            Metric metric = Metric.eventCount();
            JoinQuality quality = new Joiner(recording).joinEventsAlone(listeners.create(recording, metric, null));
            return new JoinOutcome(recording, null, null, metric, quality, scope(everything, requester, null, 0));
        }
        try (SampleSource samples = SampleSource.open(inputs.samples(), inputs.jfrSamples())) {
            if (inputs.metric() != null && samples.format().equals(SampleSource.JFR)) {
                throw new InputException("--metric is for perf agent sample files: weigh the samples of "
                        + inputs.samples() + " with --weight FIELD");
            }
            String requester = RequesterChoice.choose(everything, inputs.requester(), samples.requester());
            RecordingContents recording = everything.ofRequester(requester);
            SampleFileHeader header = samples.header();
            Metric metric = Metric.forSamples(inputs.metric(), header, inputs.samples().toString());
            JoinQuality quality = new Joiner(recording).joinSamples(samples, metric,
                    listeners.create(recording, metric, header));
            return new JoinOutcome(recording, inputs.samples(), header, metric, quality,
                    scope(everything, requester, samples.format(), samples.undelegated()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static JoinScope scope(RecordingContents everything, String requester, String samplesFormat,
            long undelegated) {
        Map<String, Long> others = new TreeMap<>(everything.requesterEvents());
        others.remove(requester);
        return new JoinScope(samplesFormat, requester, others, undelegated);
    }
}
