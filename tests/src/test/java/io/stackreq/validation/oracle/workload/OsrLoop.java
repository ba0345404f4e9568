package io.stackreq.validation.oracle.workload;

/** One long loop per call, so the JIT replaces it on the stack (OSR) while it runs. */
public final class OsrLoop {
    static long sink;

    private OsrLoop() {
    }

    public static void round() {
        sink += loop(3_000_000);
    }

    static long loop(int iterations) {
        long acc = sink;
        for (int i = 0; i < iterations; i++) {
            acc = acc * 31 + i;
            if ((i & 1023) == 0) {
                acc += step(acc);
            }
        }
        return acc;
    }

    static long step(long x) {
        return x >>> 7;
    }
}
