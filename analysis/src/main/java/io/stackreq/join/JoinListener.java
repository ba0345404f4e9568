package io.stackreq.join;

/** Receives every sample of a join, in sample-file order (event order without a sample file). */
@FunctionalInterface
public interface JoinListener {
    void accept(JoinedSample joined);
}
