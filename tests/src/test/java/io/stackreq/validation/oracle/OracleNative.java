package io.stackreq.validation.oracle;

import java.nio.ByteBuffer;

/** The JNI functions of liboracle.so (oracle.c), which is loaded as an agent. */
public final class OracleNative {
    private OracleNative() {
    }

    /** This thread's shadow-stack memory (and its perf signals with layers=ac). */
    static native ByteBuffer attach();

    /** Layer (a): writes the shadow stack and JVMTI GetStackTrace of this thread to a file. */
    static native void checkStack();

    /** Layer (b): snapshot and RequestStackTrace(env, NULL, NULL, id), flushed before returning. */
    static native int requestBiased();

    /** Stops the signals and writes the snapshots; idempotent (VMDeath calls it too). */
    public static native void finish();
}
