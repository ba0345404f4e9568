package io.stackreq.testapp;

/**
 * The Java half of libnativechain_fp.so / libnativechain_nofp.so (tests/src/test/native/native_chain.c):
 * {@link #callChain} calls the native {@link #spin}, whose C code runs a fixed 4-deep call chain.
 * With native=on every sample in the chain must read: the chain's levels, the JNI function,
 * {@code spin} (a Native Java frame), {@code callChain}.
 */
public final class NativeChain {
    private NativeChain() {
    }

    static native long spin(long seed, int rounds);

    /** Loads the chain library at path (System.load). */
    static void load(String path) {
        System.load(path);
    }

    /** Calls the chain until the deadline (System.nanoTime). */
    static long callChain(long deadlineNanos) {
        long x = 1;
        do {
            x = spin(x, 200_000);
        } while (System.nanoTime() - deadlineNanos < 0);
        return x;
    }
}
