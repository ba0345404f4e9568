package io.stackreq.join;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;

import io.stackreq.model.InputException;
import io.stackreq.model.RecordingContents;
import io.stackreq.model.RecordingReader;
import io.stackreq.model.SampleFileHeader;
import io.stackreq.model.SampleFileReader;

/** Reads a recording and (optionally) a sample file, and joins them into the given listeners. */
public final class JoinRunner {

    /** Makes the listeners once the metric and the sample file's header are known. */
    @FunctionalInterface
    public interface ListenerFactory {
        /** @param header the sample file's header, or null when the events are used alone */
        List<JoinListener> create(RecordingContents recording, Metric metric, SampleFileHeader header);
    }

    private JoinRunner() {
    }

    /**
     * @param samplesFile     the perf agent's sample file, or null to weigh every event 1
     * @param requestedMetric the counter to weigh by, or null for the sample file's leader
     */
    public static JoinOutcome run(Path recordingFile, Path samplesFile, String requestedMetric,
            ListenerFactory listeners) {
        if (samplesFile == null && requestedMetric != null) {
            throw new InputException("--metric " + requestedMetric
                    + " needs --samples FILE (without samples every event weighs 1)");
        }
        RecordingContents recording = RecordingReader.read(recordingFile);
        Joiner joiner = new Joiner(recording);
        if (samplesFile == null) {
            Metric metric = Metric.eventCount();
            JoinQuality quality = joiner.joinEventsAlone(listeners.create(recording, metric, null));
            return new JoinOutcome(recording, null, null, metric, quality);
        }
        try (SampleFileReader reader = SampleFileReader.open(samplesFile)) {
            SampleFileHeader header = reader.header();
            Metric metric = Metric.forSamples(requestedMetric, header, samplesFile.toString());
            JoinQuality quality = joiner.joinSamples(reader, metric, listeners.create(recording, metric, header));
            return new JoinOutcome(recording, samplesFile, header, metric, quality);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
