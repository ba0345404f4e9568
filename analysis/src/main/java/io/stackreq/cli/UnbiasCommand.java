package io.stackreq.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import io.stackreq.jfr.RecordingRewriter;
import io.stackreq.join.JoinRunner;
import io.stackreq.join.PreparedJoin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "unbias", mixinStandardHelpOptions = true,
        description = "Write the JVM's whole recording with its own CPU samples (jdk.ExecutionSample, "
                + "jdk.CPUTimeSample: biased) replaced by stackreq's unbiased ones as jdk.ExecutionSample, every other "
                + "event kept: one file for JDK Mission Control, every page working, Method Profiling unbiased. The "
                + "recording itself is only read.")
final class UnbiasCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    JoinedRecordingInput input;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", required = true,
            description = "Recording to write (e.g. " + Unbiasing.FILE + ")")
    Path output;

    @Override
    public Integer call() {
        Unbiasing.checkOutput(output, input.recording, input.samples);
        // Before the join, which reads the whole recording: a recording that cannot be rewritten fails at once.
        RecordingRewriter.check(input.recording);
        Unbiasing.Summary summary;
        try (PreparedJoin join = JoinRunner.prepare(input.joinInputs());
                Unbiasing unbiased = Unbiasing.start(join, output)) {
            join.join(List.of(unbiased.listener()));
            summary = unbiased.finish();
        }
        spec.commandLine().getErr().println("stackreq: wrote " + output + ": " + summary.describe());
        return 0;
    }
}
