package io.stackreq.jfr.internal;

/**
 * Calls into libstackreq.so. The natives are registered by the agent at VMInit before
 * {@link Bootstrap#start()} runs; this class is useless without the agent.
 */
final class NativeBridge {
    private NativeBridge() {
    }

    /** Some JFR recording has started in this VM: requests stop returning WRONG_PHASE. */
    static native void recordingSeen();

    /** Whether a running recording enables jdk.StackTraceRequest. */
    static native void setEventEnabled(boolean enabled);

    /** At most {@code limit} events per {@code windowNanos}; limit 0 = no throttle. */
    static native void setThrottle(long limit, long windowNanos);

    /** JFR's type id of the registered event class, used for the type in appended chunks. */
    static native void setEventTypeId(long id);

    static native void recordingStarted(long recordingId);

    /**
     * Flushes the requests accepted so far and appends the chunk of this recording's events to
     * {@code destination} (when not null).
     *
     * @return null on success, else a one-line error
     */
    static native String recordingStopped(long recordingId, String destination);
}
