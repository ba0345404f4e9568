package io.stackreq.cli;

import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;

import io.stackreq.output.EnrichedRecordingWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "enrich", mixinStandardHelpOptions = true,
        description = "Write a JFR recording of the matched samples alone: each one a jdk.ExecutionSample, as the "
                + "JDK writes its own (JDK Mission Control's Method Profiling, jfr view hot-methods, async-profiler's "
                + "converter count it), and a " + EnrichedRecordingWriter.EVENT_NAME + " event with the same stack, "
                + "thread and time and every counter delta as a field to weigh stacks by.")
final class EnrichCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    JoinedRecordingInput input;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", required = true, description = "Recording to write")
    Path output;

    @Override
    public Integer call() throws Exception {
        long written = Enrichment.write(input.joinInputs(), output);
        spec.commandLine().getErr().println(String.format(Locale.ROOT,
                "stackreq: wrote %s (%,d samples, each a jdk.ExecutionSample and a %s event)", output, written,
                EnrichedRecordingWriter.EVENT_NAME));
        return 0;
    }
}
