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
        String outOfMemory = "stackreq: out of memory: the input does not fit in this Java heap ("
                + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MB); run java with a larger -Xmx";
        Thread.setDefaultUncaughtExceptionHandler((thread, problem) -> exitOnOutOfMemory(thread, problem, outOfMemory));
        System.exit(run(args));
    }

    /**
     * Ends the CLI with one line when any thread runs out of memory: one in JMC core's loader
     * thread used to leave the main thread waiting for the loader's result for good. The message
     * is made beforehand, as there may be no memory to make it now.
     */
    private static void exitOnOutOfMemory(Thread thread, Throwable problem, String message) {
        if (!(problem instanceof OutOfMemoryError)) {
            System.err.print("Exception in thread \"" + thread.getName() + "\" ");
            problem.printStackTrace();
            return;
        }
        try {
            System.err.println(message);
            System.err.flush();
        } finally {
            Runtime.getRuntime().halt(ErrorHandler.BAD_INPUT);
        }
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
