package io.stackreq.cli;

import java.io.IOException;
import java.io.UncheckedIOException;

import io.stackreq.model.InputException;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * One line on stderr for every failure, never a stack trace: exit 2 for bad input (files, options),
 * 1 for a bug. {@code STACKREQ_DEBUG=1} adds the stack trace when a bug needs one.
 */
final class ErrorHandler implements IExecutionExceptionHandler, IParameterExceptionHandler {
    static final int BAD_INPUT = 2;
    static final int INTERNAL_ERROR = 1;

    @Override
    public int handleExecutionException(Exception exception, CommandLine commandLine, ParseResult parseResult) {
        Throwable problem = exception;
        if (problem instanceof UncheckedIOException unchecked) {
            problem = unchecked.getCause();
        }
        if (problem instanceof InputException) {
            return fail(commandLine, problem.getMessage(), BAD_INPUT, exception);
        }
        if (problem instanceof IOException) {
            return fail(commandLine, "I/O error: " + problem.getMessage(), BAD_INPUT, exception);
        }
        return fail(commandLine, "internal error: " + problem
                + " (set STACKREQ_DEBUG=1 for the stack trace and please report it)", INTERNAL_ERROR, exception);
    }

    @Override
    public int handleParseException(ParameterException exception, String[] args) {
        CommandLine commandLine = exception.getCommandLine();
        String help = commandLine.getCommandSpec().qualifiedName() + " --help";
        return fail(commandLine, exception.getMessage() + " (see " + help + ")", BAD_INPUT, exception);
    }

    private static int fail(CommandLine commandLine, String message, int exitCode, Throwable exception) {
        commandLine.getErr().println("stackreq: " + firstLine(message));
        if (System.getenv("STACKREQ_DEBUG") != null) {
            exception.printStackTrace(commandLine.getErr());
        }
        commandLine.getErr().flush();
        return exitCode;
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "unknown error";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
