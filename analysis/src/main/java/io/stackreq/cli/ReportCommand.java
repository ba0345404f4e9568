package io.stackreq.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;

import io.stackreq.join.JoinOutcome;
import io.stackreq.join.JoinRunner;
import io.stackreq.report.Grouping;
import io.stackreq.report.JsonReportFormatter;
import io.stackreq.report.Report;
import io.stackreq.report.ReportBuilder;
import io.stackreq.report.TextReportFormatter;
import io.stackreq.tree.TreeBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Self and total weight per method, line or stack, and how well samples and events joined.")
final class ReportCommand implements Callable<Integer> {
    enum Format { TEXT, JSON }

    @Spec
    CommandSpec spec;

    @Mixin
    RecordingInput input;

    @Option(names = "--by", paramLabel = "method|line|stack", defaultValue = "method",
            description = "What one row stands for (default: ${DEFAULT-VALUE})")
    Grouping by;

    @Option(names = "--threads", description = "Also the threads (name, OS id, Java or JVM-internal, samples, "
            + "share; the JVM's own threads appear when sampled, e.g. profile --all-threads --native) and one "
            + "table per thread")
    boolean threads;

    @Option(names = "--top", paramLabel = "N", defaultValue = "20",
            description = "At most N rows per table, by self weight; 0 for all (default: ${DEFAULT-VALUE})")
    int top;

    @Option(names = "--format", paramLabel = "text|json", defaultValue = "text",
            description = "Output format (default: ${DEFAULT-VALUE})")
    Format format;

    @Override
    public Integer call() {
        Report report = build(input, by, threads, top);
        PrintWriter out = spec.commandLine().getOut();
        out.print(format == Format.JSON ? new JsonReportFormatter().format(report)
                : new TextReportFormatter().format(report));
        out.flush();
        return 0;
    }

    static Report build(RecordingInput input, Grouping by, boolean threads, int top) {
        TreeBuilder trees = new TreeBuilder(by.frameKey(), false, threads);
        JoinOutcome outcome = JoinRunner.run(input.joinInputs(), List.of(trees));
        return new ReportBuilder(by, top).build(outcome, trees.tree(), trees.byThread(), trees.tallies());
    }
}
