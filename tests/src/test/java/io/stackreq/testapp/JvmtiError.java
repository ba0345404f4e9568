package io.stackreq.testapp;

/** The {@code jvmtiError} codes the test agents' natives return and the tests expect, numbered as in jvmti.h. */
public final class JvmtiError {
    public static final int NONE = 0;
    public static final int INVALID_THREAD = 10;
    public static final int THREAD_NOT_ALIVE = 15;
    public static final int UNSUPPORTED_OPERATION = 73;
    public static final int NOT_AVAILABLE = 98;
    public static final int OUT_OF_MEMORY = 110;
    public static final int WRONG_PHASE = 112;
    public static final int UNATTACHED_THREAD = 115;
    public static final int INVALID_ENVIRONMENT = 116;

    private JvmtiError() {
    }
}
