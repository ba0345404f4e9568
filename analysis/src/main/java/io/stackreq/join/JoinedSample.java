package io.stackreq.join;

import io.stackreq.model.Sample;
import io.stackreq.model.StackEvent;

/**
 * One sample and what the join found for it.
 *
 * @param sample the sample, or null when the profile has no sample file (one entry per event)
 * @param event  the stack-trace event with the sample's userData, or null when there is none
 * @param weight the sample's weight in the chosen metric (1 per event without a sample file)
 * @param status what became of the sample
 */
public record JoinedSample(Sample sample, StackEvent event, long weight, Status status) {

    public enum Status {
        /** The event has a stack: the sample is attributed. */
        MATCHED,
        /** RequestStackTrace accepted the request but no event has its userData (dropped in the JVM, or lost). */
        NO_EVENT,
        /** The event exists but holds no stack ({@code failed = true}). */
        FAILED_EVENT,
        /** RequestStackTrace returned an error: no event can exist. */
        REJECTED,
        /** An earlier sample already had this userData: not attributed twice. */
        DUPLICATE
    }

    public boolean matched() {
        return status == Status.MATCHED;
    }
}
