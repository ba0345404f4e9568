package io.stackreq.cli;

import java.nio.file.Path;

import io.stackreq.join.JoinInputs;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The inputs every analysis command reads: a recording, optionally samples and a metric. */
final class RecordingInput {
    @Parameters(index = "0", paramLabel = "REC.jfr",
            description = "JFR recording with jdk.StackTraceRequest events (stackreq's or a JDK's own)")
    Path recording;

    @Option(names = "--samples", paramLabel = "FILE",
            description = "Samples to join by userData: the perf agent's sample file (JSON lines) or a JFR file "
                    + "with sample events (e.g. Datadog's; told apart by content); without it every stack-trace "
                    + "event weighs 1")
    Path samples;

    @Option(names = "--metric", paramLabel = "EVENT",
            description = "Counter of a perf agent sample file to weigh samples by (default: the sample file's "
                    + "leader, e.g. task-clock), or samples: each sample weighs 1, as the readers of "
                    + "jdk.ExecutionSample count them")
    String metric;

    @Mixin
    SampleOptions sampleOptions;

    JoinInputs joinInputs() {
        return sampleOptions.joinInputs(recording, samples, metric);
    }
}
