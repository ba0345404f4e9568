package io.stackreq.cli;

import java.nio.file.Path;

import io.stackreq.join.JoinInputs;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The inputs of the commands that write the matched samples into a recording: both files are required. */
final class JoinedRecordingInput {
    @Parameters(index = "0", paramLabel = "REC.jfr", description = "JFR recording with jdk.StackTraceRequest events")
    Path recording;

    @Option(names = "--samples", paramLabel = "FILE", required = true,
            description = "Samples to join by userData: the perf agent's sample file or a JFR file with sample events")
    Path samples;

    @Mixin
    SampleOptions sampleOptions;

    JoinInputs joinInputs() {
        return sampleOptions.joinInputs(recording, samples, null);
    }
}
