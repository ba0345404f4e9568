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
        // JMC core logs parser warnings through java.util.logging; the CLI reports problems itself.
        JMC_LOGGER.setLevel(Level.SEVERE);
        return commandLine().execute(args);
    }

    public static CommandLine commandLine() {
        CommandLine commandLine = new CommandLine(new StackreqCommand());
        commandLine.setCaseInsensitiveEnumValuesAllowed(true);
        commandLine.setExecutionExceptionHandler(new ErrorHandler());
        commandLine.setParameterExceptionHandler(new ErrorHandler());
        return commandLine;
    }
}
