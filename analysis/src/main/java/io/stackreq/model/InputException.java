package io.stackreq.model;

/**
 * A problem with what the user gave the CLI (a missing or corrupt file, a recording without
 * stack-trace events, samples that match nothing). The CLI prints the message as one line and
 * exits with code 2; the message must therefore name the file and the problem on its own.
 */
public final class InputException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public InputException(String message) {
        super(message);
    }

    public InputException(String message, Throwable cause) {
        super(message, cause);
    }
}
