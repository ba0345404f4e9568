package io.stackreq.reliability.app;

/**
 * JNI face of libchaos.so ({@code tests/src/test/native/chaos.c}), the reliability tests'
 * profiling agent. Its natives live in the agent library, so the JVM must run with
 * {@code -agentpath:.../libchaos.so} (after libstackreq.so).
 *
 * <p>Signal-driven requests come from <em>pacers</em>: native threads that send the signal to the
 * threads that called {@link #register()}, round-robin, at a fixed rate. With
 * {@code requestsPerSignal = 0} each signal makes one request with the real ucontext; with
 * {@code K > 0} it makes K requests, each with a copy of the ucontext whose PC/SP/FP are mutated
 * ({@link #MUTATIONS}). Every request gets the next id (1, 2, ...) as its userData; the agent
 * records its return code, OS tid and mutation per id.
 */
public final class Chaos {
    /** Mutation kinds, by their 4-bit code in the per-id mutation value. */
    public static final String[] MUTATIONS = {"keep", "random", "near", "pages", "zero", "misaligned", "all-ones",
        "kernel", "wide", "guard-zone"};
    /** Mutation value bit: the request was fuzzed (else it used the real context or none). */
    public static final int FUZZED = 0x8000;
    /** Mutation value bit: the request was made by the agent's VMDeath callback. */
    public static final int AT_DEATH = 0x4000;

    private Chaos() {
    }

    public static native int enable();

    public static native int disable();

    public static native int currentTid();

    /** Makes the calling thread a pacer target; its OS tid, or -1 when the table is full. */
    public static native int register();

    public static native void unregister();

    /** Makes the JVM's own threads running now (GC, VM thread, JIT compilers) pacer targets; how many. */
    public static native int registerInternalThreads();

    /**
     * Starts native threads computing in C, each a target: {@code unattached} named chaos-spinner,
     * never attached to the VM, and {@code attached} attached as chaos-attached (Java threads with
     * no Java frame); at most 8 in all. 0 or an errno value.
     */
    public static native int startNativeSpinners(int unattached, int attached);

    public static native void stopNativeSpinners();

    /** Starts {@code pacers} threads of {@code hz} signals each; 0 or an errno value. */
    public static native int startPacers(int pacers, int hz, int requestsPerSignal);

    /** Stops the pacers and waits for every handler to return. */
    public static native void stopPacers();

    /**
     * Sends the signal to the calling thread now; 0 or an errno value. Its handler requests only
     * while pacers run or before they were first stopped (a stopped agent counts late signals).
     */
    public static native int signalSelf();

    /** Ids handed out so far. */
    public static native long issued();

    public static native long signalsSent();

    /** Waits until ids 1..upTo have returned; false on timeout. */
    public static native boolean awaitResults(long upTo, long timeoutMillis);

    /** Return code of request {@code id}, or -1 when it has not returned. */
    public static native int resultOf(long id);

    /** Writes PREFIX.bin and PREFIX.txt; 0 or an errno value. */
    public static native int writeResults(String prefix);

    /** RequestStackTrace(env, NULL, NULL, id) with the next id, recorded; returns the id. */
    public static native long requestHere();

    // Bad input: each returns what RequestStackTrace (or Enable/Disable) returned.

    public static native int requestNullEnv(Thread thread, long userData);

    public static native int enableNullEnv();

    public static native int disableNullEnv();

    public static native int requestObject(Object notAThread, long userData);

    public static native int requestDeletedLocal(Object object, long userData);

    public static native int requestDeletedGlobal(Object object, long userData);

    public static native long newWeak(Object object);

    public static native boolean weakCleared(long weak);

    public static native int requestWeak(long weak, long userData);

    public static native void deleteWeak(long weak);

    public static void startPacersOrThrow(int pacers, int hz, int requestsPerSignal) {
        int error = startPacers(pacers, hz, requestsPerSignal);
        if (error != 0) {
            throw new IllegalStateException("startPacers failed: errno " + error);
        }
    }

    public static void writeResultsOrThrow(String prefix) {
        int error = writeResults(prefix);
        if (error != 0) {
            throw new IllegalStateException("writeResults(" + prefix + ") failed: errno " + error);
        }
    }
}
