package io.stackreq.join;

import java.nio.file.Path;

import io.stackreq.model.RecordingContents;
import io.stackreq.model.SampleFileHeader;

/**
 * A finished join.
 *
 * @param recording   what was read from the recording
 * @param samplesFile the sample file, or null when the events were used alone
 * @param header      the sample file's header, or null without a sample file
 * @param metric      what the weights measure
 * @param quality     how well samples and events fit together
 * @param scope       what the join took from its inputs and left out
 */
public record JoinOutcome(RecordingContents recording, Path samplesFile, SampleFileHeader header, Metric metric,
        JoinQuality quality, JoinScope scope) {
}
