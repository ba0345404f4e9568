package io.stackreq.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import io.stackreq.join.JoinOutcome;
import io.stackreq.join.JoinRunner;
import io.stackreq.tree.FrameKey;
import io.stackreq.tree.TreeBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "flame", mixinStandardHelpOptions = true,
        description = "Write a self-contained interactive flame graph (one HTML file, no network needed): "
                + "click to zoom, search to highlight, hover for weights.")
final class FlameCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    RecordingInput input;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", defaultValue = "flame.html",
            description = "HTML file to write (default: ${DEFAULT-VALUE})")
    Path output;

    @Option(names = "--threads", description = "One tower per thread (the thread name as the root frame)")
    boolean threads;

    @Override
    public Integer call() throws Exception {
        TreeBuilder trees = new TreeBuilder(FrameKey.METHOD, threads, false);
        JoinOutcome outcome = JoinRunner.run(input.joinInputs(), List.of(trees));
        JoinOutputs.writeFlameGraph(output, trees.tree(), outcome);
        spec.commandLine().getErr().println("stackreq: wrote " + output);
        return 0;
    }
}
