package io.stackreq.validation.oracle.workload;

/** Mostly in JNI: native burns, and every eighth call a native that calls back into Java. */
public final class JniLoop {
    static long sink;

    private JniLoop() {
    }

    public static void round() {
        long acc = sink;
        for (int i = 0; i < 200; i++) {
            acc = (i & 7) == 0 ? burnAndCallBack(acc, 20_000) : burn(acc, 20_000);
        }
        sink = acc;
    }

    static native long burn(long seed, int rounds);

    static native long burnAndCallBack(long seed, int rounds);

    /** Called from burnAndCallBack (C), between two burns. */
    static long upcall(long x) {
        return compute(x, 100_000);
    }

    static long compute(long x, int rounds) {
        long acc = x;
        for (int i = 0; i < rounds; i++) {
            acc = acc * 31 + i;
        }
        return acc;
    }
}
