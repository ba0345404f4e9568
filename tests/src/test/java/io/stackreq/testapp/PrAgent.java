package io.stackreq.testapp;

/**
 * JNI face of libpr_agent.so, an agent written to openjdk/jdk pull request 31059's revision:
 * RequestStackTrace alone, the thread by value, never an Enable call (see pr_agent.c). The natives
 * live in the agent library, so the JVM must run with {@code -agentpath:.../libpr_agent.so}.
 * Return values are {@code jvmtiError} codes ({@link JvmtiError}).
 */
public final class PrAgent {
    private PrAgent() {
    }

    /** RequestStackTrace(env, t, NULL, userData), t by value (a local reference; null: the caller). */
    public static native int request(Thread t, long userData);

    /** The same function called as the JEP text declares it: a pointer to a variable holding t. */
    public static native int requestByPointer(Thread t, long userData);

    /** By value, a global reference to t. */
    public static native int requestGlobal(Thread t, long userData);

    /** By value, kind 0: an unreadable address; kind 1: a pointer to a word that is no reference. */
    public static native int requestGarbage(int kind, long userData);

    /** Signals the calling thread: the handler requests with (jthread)NULL and its ucontext. */
    public static native int signalSelf(long userData);

    /** The user data of the next pr-callback thread's ThreadStart requests: by value id, by pointer id + 1. */
    public static native void setCallbackUserData(long userData);

    /** What the last pr-callback thread's ThreadStart requests returned; -1 before any. */
    public static native int callbackByValue();

    public static native int callbackByPointer();
}
