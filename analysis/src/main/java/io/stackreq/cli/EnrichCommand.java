package io.stackreq.cli;

import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;

import io.stackreq.output.EnrichedRecordingWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "enrich", mixinStandardHelpOptions = true,
        description = "Write a JFR recording of the matched samples alone: each one a jdk.ExecutionSample, as the "
                + "JDK writes its own (JDK Mission Control's Method Profiling, jfr view hot-methods, async-profiler's "
                + "converter count it), and a " + EnrichedRecordingWriter.EVENT_NAME + " event with the same stack, "
                + "thread and time and every counter delta as a field to weigh stacks by.")
final class EnrichCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "REC.jfr", description = "JFR recording with jdk.StackTraceRequest events")
    Path recording;

    @Option(names = "--samples", paramLabel = "FILE", required = true,
            description = "Samples to join by userData: the perf agent's sample file or a JFR file with sample events")
    Path samples;

    @Mixin
    SampleOptions sampleOptions;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", required = true, description = "Recording to write")
    Path output;

    @Override
    public Integer call() throws Exception {
        long written = Enrichment.write(sampleOptions.joinInputs(recording, samples, null), output);
        spec.commandLine().getErr().println(String.format(Locale.ROOT,
                "stackreq: wrote %s (%,d samples, each a jdk.ExecutionSample and a %s event)", output, written,
                EnrichedRecordingWriter.EVENT_NAME));
        return 0;
    }
}
