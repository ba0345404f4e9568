package io.stackreq.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;

import io.stackreq.export.EnrichedProfileReader;
import io.stackreq.export.FleetFormat;
import io.stackreq.export.JoinedProfileBuilder;
import io.stackreq.export.StackProfile;
import io.stackreq.join.JoinInputs;
import io.stackreq.join.JoinRunner;
import io.stackreq.join.PreparedJoin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "export", mixinStandardHelpOptions = true,
        description = {"Write the matched samples as a profile continuous-profiling backends read: pprof "
                + "(gzipped profile.proto) or OpenTelemetry profiles (OTLP), one sample type per counter of the "
                + "perf group plus samples/count, labelled with the thread.",
                "Example: stackreq export out/recording.jfr --samples out/samples.jsonl --format pprof "
                + "-o profile.pb.gz"})
final class ExportCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "REC.jfr",
            description = "JFR recording with jdk.StackTraceRequest events, or the profile.jfr of enrich or profile "
                    + "(then without --samples)")
    Path recording;

    @Option(names = "--samples", paramLabel = "FILE",
            description = "Samples to join by userData: the perf agent's sample file (JSON lines) or a JFR file with "
                    + "sample events; without it every stack-trace event is one sample and the profile has only "
                    + "samples/count")
    Path samples;

    @Mixin
    SampleOptions sampleOptions;

    @Option(names = "--format", paramLabel = "pprof|otlp", required = true, description = "Profile format")
    FleetFormat format;

    @Option(names = "--json", description = "With --format otlp: OTLP/JSON instead of binary protobuf")
    boolean json;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", required = true, description = "File to write")
    Path output;

    @Override
    public Integer call() throws Exception {
        if (json && format != FleetFormat.OTLP) {
            throw new ParameterException(spec.commandLine(), "--json is for --format otlp (pprof is binary only)");
        }
        JoinInputs inputs = sampleOptions.joinInputs(recording, samples, null);
        inputs.checkOptions();
        // profile.jfr (from enrich or profile) already holds joined samples with their counters.
        StackProfile profile = (samples == null ? EnrichedProfileReader.read(recording) : Optional.<StackProfile>empty())
                .orElseGet(() -> joinedProfile(inputs));
        format.write(profile, output, json);
        spec.commandLine().getErr().println(String.format(Locale.ROOT, "stackreq: wrote %s (%,d samples in %,d "
                + "stacks)", output, profile.samples(), profile.values().size()));
        return 0;
    }

    private static StackProfile joinedProfile(JoinInputs inputs) {
        try (PreparedJoin join = JoinRunner.prepare(inputs)) {
            JoinedProfileBuilder builder = JoinOutputs.stackProfile(join);
            join.join(List.of(builder));
            return builder.profile();
        }
    }
}
