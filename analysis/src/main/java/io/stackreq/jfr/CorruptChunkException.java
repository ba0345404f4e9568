package io.stackreq.jfr;

/** A chunk whose bytes do not hold what JFR's format says they must: the message names what. */
final class CorruptChunkException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    CorruptChunkException(String problem) {
        super(problem);
    }
}
