package io.stackreq.join;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.stackreq.model.RecordingContents;
import io.stackreq.model.SampleFileHeader;
import io.stackreq.model.SampleSource;

/**
 * A join whose inputs are read (the recording) or open (the samples, their header read), made by
 * {@link JoinRunner#prepare}: what its listeners need to know before they are made, then
 * {@link #join} once. Closing it closes the samples.
 */
public final class PreparedJoin implements AutoCloseable {
    private final RecordingContents everything;
    private final RecordingContents recording;
    private final String requester;
    private final Metric metric;
    private final Path samplesFile;
    private final SampleSource samples;

    /** @param samples the open samples, or null to count the events alone */
    PreparedJoin(RecordingContents everything, String requester, Metric metric, Path samplesFile,
            SampleSource samples) {
        this.everything = everything;
        this.recording = everything.ofRequester(requester);
        this.requester = requester;
        this.metric = metric;
        this.samplesFile = samplesFile;
        this.samples = samples;
    }

    /** The events of the requester joined. */
    public RecordingContents recording() {
        return recording;
    }

    /** What the weights measure. */
    public Metric metric() {
        return metric;
    }

    /** The sample file, or null when the events are used alone. */
    public Path samplesFile() {
        return samplesFile;
    }

    /** The samples' header, or null when the events are used alone. */
    public SampleFileHeader header() {
        return samples == null ? null : samples.header();
    }

    /** Joins the samples (or counts the events) into {@code listeners}, in sample-file order. */
    public JoinOutcome join(List<? extends JoinListener> listeners) {
        List<JoinListener> all = List.copyOf(listeners);
        Joiner joiner = new Joiner(recording);
        if (samples == null) {
            return new JoinOutcome(recording, null, null, metric, joiner.joinEventsAlone(all), scope(null, 0));
        }
        JoinQuality quality = joiner.joinSamples(samples, metric, all);
        return new JoinOutcome(recording, samplesFile, header(), metric, quality,
                scope(samples.format(), samples.undelegated()));
    }

    private JoinScope scope(String samplesFormat, long undelegated) {
        Map<String, Long> others = new TreeMap<>(everything.requesterEvents());
        others.remove(requester);
        return new JoinScope(samplesFormat, requester, others, undelegated);
    }

    @Override
    public void close() {
        if (samples != null) {
            try {
                samples.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
