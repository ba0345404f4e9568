package io.stackreq.cli;

import java.nio.file.Path;

import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The inputs every analysis command reads: a recording, optionally a sample file and a metric. */
final class RecordingInput {
    @Parameters(index = "0", paramLabel = "REC.jfr",
            description = "JFR recording with jdk.StackTraceRequest events (stackreq's or a JDK's own)")
    Path recording;

    @Option(names = "--samples", paramLabel = "FILE",
            description = "Sample file of the perf agent (JSON lines); without it every stack-trace event weighs 1")
    Path samples;

    @Option(names = "--metric", paramLabel = "EVENT",
            description = "Counter to weigh samples by (default: the sample file's leader, e.g. task-clock)")
    String metric;
}
