package io.stackreq.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code stackreq}: the top command; does nothing by itself but list its subcommands. */
@Command(name = "stackreq", mixinStandardHelpOptions = true, version = "stackreq 0.1.0",
        description = "Unbiased Java stack traces on perf-counter overflows: profile a JVM, then join the "
                + "perf samples with the jdk.StackTraceRequest events of its JFR recording.",
        subcommands = {ProfileCommand.class, ReportCommand.class, FlameCommand.class, CollapsedCommand.class,
                JoinCommand.class, EnrichCommand.class, UnbiasCommand.class, ExportCommand.class,
                DemoCommand.class})
public final class StackreqCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing a command (try: stackreq demo)");
    }
}
