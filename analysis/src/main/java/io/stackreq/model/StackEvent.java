package io.stackreq.model;

import java.util.List;

/**
 * One {@code jdk.StackTraceRequest} event.
 *
 * @param userData       the value the requester passed to RequestStackTrace
 * @param startEpochNanos the request time, nanoseconds since the epoch
 * @param threadName     the Java (or else OS) name of the sampled thread, or null when not recorded
 * @param javaThreadId   the Java thread id, or null when not recorded
 * @param frames         top frame first; empty when the event failed or had no stack trace
 * @param truncated      whether JFR truncated the stack trace
 * @param failed         the event's {@code failed} field: no stack could be taken
 * @param biased         the event's {@code biased} field: taken at a safepoint, not where the signal hit
 */
public record StackEvent(long userData, long startEpochNanos, String threadName, Long javaThreadId,
        List<Frame> frames, boolean truncated, boolean failed, boolean biased) {

    public StackEvent {
        frames = List.copyOf(frames);
    }

    /** Whether this event can be attributed: it has at least one frame and did not fail. */
    public boolean hasStack() {
        return !failed && !frames.isEmpty();
    }
}
