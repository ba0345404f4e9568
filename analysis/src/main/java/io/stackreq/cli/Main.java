package io.stackreq.cli;

import java.util.logging.Level;
import java.util.logging.Logger;

import picocli.CommandLine;

/** Entry point of {@code stackreq.jar}. */
public final class Main {
    // Held so the level setting is not lost when the logger is garbage collected.
    private static final Logger JMC_LOGGER = Logger.getLogger("org.openjdk.jmc");

    private Main() {
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the CLI and returns its exit code: 0 ok, 2 bad input, 1 internal error. */
    public static int run(String... args) {
        return commandLine().execute(args);
    }

    public static CommandLine commandLine() {
        // JMC core logs parser problems through java.util.logging, stack traces included; the
        // CLI reports them itself, in one line.
        JMC_LOGGER.setLevel(Level.OFF);
        CommandLine commandLine = new CommandLine(new StackreqCommand());
        commandLine.setCaseInsensitiveEnumValuesAllowed(true);
        commandLine.setExecutionExceptionHandler(new ErrorHandler());
        commandLine.setParameterExceptionHandler(new ErrorHandler());
        return commandLine;
    }
}
