package io.stackreq.validation.oracle.workload;

/** Small hot methods C2 inlines four deep into a counted loop. */
public final class Inlining {
    static long sink;

    private Inlining() {
    }

    public static void round() {
        long acc = sink;
        for (int i = 0; i < 200_000; i++) {
            acc = a(acc, i);
        }
        sink = acc;
    }

    static long a(long x, int i) {
        return b(x, i) + 1;
    }

    static long b(long x, int i) {
        return c(x ^ i, i) * 3;
    }

    static long c(long x, int i) {
        return d(x + i) - i;
    }

    static long d(long x) {
        return (x * 0x9E3779B97F4A7C15L) >>> 3;
    }
}
