package io.stackreq.testapp;

/**
 * JNI face of librequester.so, the test profiling agent that reaches RequestStackTrace through
 * {@code GetExtensionFunctions} only. The natives live in the agent library itself (HotSpot looks
 * native methods up in agent libraries), so the JVM must run with
 * {@code -agentpath:.../librequester.so}.
 *
 * <p>Return values are {@code jvmtiError} codes ({@link JvmtiError}); the timer natives return errno
 * values.
 */
public final class Requester {
    private Requester() {
    }

    /** Whether GetExtensionFunctions listed the three ids when the agent loaded. */
    public static native boolean available();

    /**
     * What RequestStackTrace(env, NULL, NULL, 0) returned when called from Agent_OnLoad (agent
     * option {@code onload-request}), else -1.
     */
    public static native int onLoadResult();

    public static native int enable();

    public static native int disable();

    /** InitializeRequestStackTrace(env), as Datadog's profiler calls it. */
    public static native int initialize();

    /** RequestStackTrace(env, t == null ? NULL : &t, NULL, userData). */
    public static native int request(Thread t, long userData);

    /** RequestStackTrace(env, &o, NULL, userData): o need not be a thread. */
    public static native int requestObject(Object o, long userData);

    /** OS thread id of the calling thread. */
    public static native int currentTid();

    /** Arms a CPU-time timer on the calling thread; its handler requests with ids 1, 2, ... */
    public static native int startTimer(int intervalMicros);

    public static native int stopTimer();

    /**
     * Sends SIGURG, handled by a no-op handler, to the thread with this OS id: another agent's
     * signal, as JFR's sampler suspends threads with one. 0 or an errno value.
     */
    public static native int poke(int tid);

    /**
     * Delivers the timer signal to the calling thread now: its handler requests (next id) with
     * this point of the stack; the request has been made when this returns. 0 or an errno value.
     */
    public static native int signalSelf();

    /** Timer ids that got JVMTI_ERROR_NONE, ascending. Call when every timer is stopped. */
    public static native long[] acceptedIds();

    /** Index id: OS thread id of the handler that issued it. */
    public static native int[] idTids();

    /** Index jvmtiError: number of timer requests that returned it. */
    public static native long[] errorCounts();

    /** Index jvmtiError: number of requests made at ThreadEnd (agent option thread-end-requests). */
    public static native long[] threadEndErrorCounts();

    public static native long issued();

    public static native long overflow();

    /** Starts this thread's timer or throws. */
    public static void startTimerOrThrow(int intervalMicros) {
        int error = startTimer(intervalMicros);
        if (error != 0) {
            throw new IllegalStateException("startTimer failed: errno " + error);
        }
    }

    /** Stops this thread's timer or throws. */
    public static void stopTimerOrThrow() {
        int error = stopTimer();
        if (error != 0) {
            throw new IllegalStateException("stopTimer failed: errno " + error);
        }
    }

    /** Adds {@code prefix + code} = count to a report for every return code counted (index = jvmtiError). */
    public static void putErrorCounts(Report report, String prefix, long[] counts) {
        for (int code = 0; code < counts.length; code++) {
            if (counts[code] != 0) {
                report.put(prefix + code, counts[code]);
            }
        }
    }

    /**
     * Adds the timer results to a report: {@code issued}, {@code overflow}, {@code rc.N} per
     * return code seen, {@code accepted} (ids) and {@code acceptedTids} (same order).
     */
    public static void putTimerResults(Report report) {
        long[] accepted = acceptedIds();
        int[] tids = idTids();
        long[] counts = errorCounts();
        report.put("issued", issued());
        report.put("overflow", overflow());
        putErrorCounts(report, "rc.", counts);
        StringBuilder ids = new StringBuilder();
        StringBuilder idThreads = new StringBuilder();
        for (long id : accepted) {
            ids.append(id).append(' ');
            idThreads.append(id < tids.length ? tids[(int) id] : 0).append(' ');
        }
        report.put("accepted", ids.toString().trim());
        report.put("acceptedTids", idThreads.toString().trim());
    }
}
