package io.stackreq.cli;

import java.io.Writer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import io.stackreq.flame.CollapsedWriter;
import io.stackreq.join.JoinRunner;
import io.stackreq.output.OutputFiles;
import io.stackreq.tree.FrameKey;
import io.stackreq.tree.TreeBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "collapsed", mixinStandardHelpOptions = true,
        description = "Write collapsed stacks (root;...;leaf weight), as flamegraph.pl and speedscope read them.")
final class CollapsedCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    RecordingInput input;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "File to write (default: standard output)")
    Path output;

    @Option(names = "--threads", description = "Put the thread name as the root frame of every stack")
    boolean threads;

    @Option(names = "--lines", description = "Frames as package.Class.method:line instead of package.Class.method")
    boolean lines;

    @Override
    public Integer call() throws Exception {
        TreeBuilder trees = new TreeBuilder(lines ? FrameKey.LINE : FrameKey.METHOD, threads, false);
        JoinRunner.run(input.joinInputs(), List.of(trees));
        if (output == null) {
            Writer out = spec.commandLine().getOut();
            new CollapsedWriter().write(trees.tree(), out);
            out.flush();
        } else {
            try (Writer out = OutputFiles.newWriter(output)) {
                new CollapsedWriter().write(trees.tree(), out);
            }
        }
        return 0;
    }
}
