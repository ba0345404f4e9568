package io.stackreq.cli;

import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import io.stackreq.jfr.RecordingRewriter;
import io.stackreq.join.JoinRunner;
import io.stackreq.join.PreparedJoin;
import io.stackreq.model.InputException;
import io.stackreq.output.OutputFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "unbias", mixinStandardHelpOptions = true,
        description = "Write the JVM's whole recording with its own execution samples (jdk.ExecutionSample, "
                + "jdk.CPUTimeSample: biased) replaced by stackreq's unbiased ones as jdk.ExecutionSample, every other "
                + "event kept: one file for JDK Mission Control, every page working, Method Profiling unbiased. The "
                + "recording itself is only read.")
final class UnbiasCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "REC.jfr", description = "JFR recording with jdk.StackTraceRequest events")
    Path recording;

    @Option(names = "--samples", paramLabel = "FILE", required = true,
            description = "Samples to join by userData: the perf agent's sample file or a JFR file with sample events")
    Path samples;

    @Mixin
    SampleOptions sampleOptions;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", required = true,
            description = "Recording to write (e.g. " + Unbiasing.FILE + ")")
    Path output;

    @Override
    public Integer call() throws Exception {
        Unbiasing.checkOutput(output, recording, samples);
        RecordingRewriter.check(recording);
        Unbiasing.Summary summary;
        try (PreparedJoin join = JoinRunner.prepare(sampleOptions.joinInputs(recording, samples, null))) {
            SeekableByteChannel out = OutputFiles.newChannel(output);
            boolean done = false;
            try (out) {
                RecordingRewriter.Removed removed = RecordingRewriter.copyWithoutSamples(recording, out);
                summary = new Unbiasing.Summary(removed, Enrichment.append(join, out).written());
                done = true;
            } catch (IOException e) {
                throw new InputException("cannot write " + output + ": " + e.getMessage(), e);
            } finally {
                if (!done) {
                    Unbiasing.deleteQuietly(output);
                }
            }
        }
        spec.commandLine().getErr().println("stackreq: wrote " + output + ": " + summary.describe());
        return 0;
    }
}
