package io.stackreq.model;

import java.util.List;

/**
 * One {@code jdk.StackTraceRequest} event.
 *
 * @param userData        the value the requester passed to RequestStackTrace
 * @param startEpochNanos the request time, nanoseconds since the epoch
 * @param thread          the sampled thread
 * @param trace           the stack trace taken, and how
 */
public record StackEvent(long userData, long startEpochNanos, SampledThread thread, Trace trace) {

    /**
     * @param name   the Java (or else OS) name of the thread, or null when not recorded
     * @param javaId the Java thread id, or null when not recorded
     */
    public record SampledThread(String name, Long javaId) {
    }

    /**
     * @param frames    top frame first; empty when the event failed or had no stack trace
     * @param truncated whether JFR truncated the stack trace
     * @param failed    the event's {@code failed} field: no stack could be taken
     * @param biased    the event's {@code biased} field: taken at a safepoint, not where the signal hit
     */
    public record Trace(List<Frame> frames, boolean truncated, boolean failed, boolean biased) {
        public Trace {
            frames = List.copyOf(frames);
        }
    }

    // The thread and the trace are parts of their own because many events share them:
    // RecordingContents keeps each once and makes an event of its columns and its shape's parts,
    // one object per event. The accessors below read through the parts.

    public String threadName() {
        return thread.name();
    }

    public Long javaThreadId() {
        return thread.javaId();
    }

    public List<Frame> frames() {
        return trace.frames();
    }

    public boolean truncated() {
        return trace.truncated();
    }

    public boolean failed() {
        return trace.failed();
    }

    public boolean biased() {
        return trace.biased();
    }

    /** Whether this event can be attributed: it has at least one frame and did not fail. */
    public boolean hasStack() {
        return !trace.failed() && !trace.frames().isEmpty();
    }
}
