package io.stackreq.jfr.internal;

/**
 * Calls into libstackreq.so. The natives are registered by the agent at VMInit before
 * {@link Bootstrap#start()} runs; this class is useless without the agent.
 */
final class NativeBridge {
    /** Set by {@link Bootstrap#start()}, which the agent calls once the natives are registered. */
    private static volatile boolean registered;

    private NativeBridge() {
    }

    static void markRegistered() {
        registered = true;
    }

    /** Whether the natives can be called: false in a JVM where JFR loaded the event without the agent. */
    static boolean isRegistered() {
        return registered;
    }

    /** Some JFR recording has started in this VM: requests stop returning WRONG_PHASE. */
    static native void recordingSeen();

    /** Whether a running recording enables jdk.StackTraceRequest. */
    static native void setEventEnabled(boolean enabled);

    /** At most {@code limit} events per {@code windowNanos}; limit 0 = no throttle. */
    static native void setThrottle(long limit, long windowNanos);

    /**
     * JFR has initialized: from now on libstackreq's emitter thread checks {@code type}'s enabled
     * state at each wake-up and calls {@link Bootstrap#pollSettings()} when it disagrees with the
     * request gate or changed.
     */
    static native void startSettingsPoll(jdk.jfr.EventType type);

    /** Whether a running recording is in memory (with the chunk hook): the poll then notes destinations. */
    static native void setMemoryRecordingRunning(boolean running);

    /** JFR has initialized: says in one line whether stackreq follows the threads it excludes. */
    static native void checkJfrExclusions();

    /** JFR's type id of the registered event class, used for the type in appended chunks. */
    static native void setEventTypeId(long id);

    /**
     * Installs the chunk hook: defines {@code hookClass} (the bytes of
     * {@code io.stackreq.jfr.boot.ChunkFinishHook}) in the boot loader and rewrites JFR's
     * {@code RepositoryChunk}.
     *
     * @return null when installed, else a one-line reason
     */
    static native String installChunkHook(byte[] hookClass, jdk.jfr.FlightRecorder recorder);

    /**
     * Installs the enabled-flag hook: defines {@code hookClass} (the bytes of
     * {@code io.stackreq.jfr.boot.EnabledFlagHook}) in the boot loader and rewrites JFR's
     * {@code PlatformEventType.setEnabled}. Call after {@link #startSettingsPoll}.
     *
     * @return null when installed, else a one-line reason
     */
    static native String installEnabledFlagHook(byte[] hookClass);

    /**
     * With the chunk hook: the last running recording stopped. The events not yet in a chunk are
     * appended to {@code destination} (when not null), the others discarded: nothing records them.
     *
     * @return null on success, else a one-line error
     */
    static native String lastRecordingStopped(String destination);

    /** Without the chunk hook: a recording that enables the event started. */
    static native void recordingStarted(long recordingId);

    /**
     * Without the chunk hook: flushes the requests accepted so far and appends the chunk of this recording's events to
     * {@code destination} (when not null).
     *
     * @return null on success, else a one-line error
     */
    static native String recordingStopped(long recordingId, String destination);
}
