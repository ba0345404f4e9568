package io.stackreq.validation.oracle.workload;

/** Deep recursion: 600 frames down, work at the bottom and on every level on the way up. */
public final class Recursion {
    public static final int DEPTH = 600;
    static long sink;

    private Recursion() {
    }

    public static void round() {
        sink += descend(DEPTH, 1);
    }

    static long descend(int depth, long acc) {
        if (depth == 0) {
            return leaf(acc);
        }
        long value = descend(depth - 1, acc * 31 + depth);
        return value ^ mix(value, depth);
    }

    static long leaf(long acc) {
        for (int i = 0; i < 300_000; i++) {
            acc = acc * 6364136223846793005L + i;
        }
        return acc;
    }

    static long mix(long value, int depth) {
        long x = value;
        for (int i = 0; i < 400; i++) {
            x = x * 31 + depth;
        }
        return x;
    }
}
