package io.stackreq.validation.oracle.workload;

/** Exceptions thrown through many frames: caught at the bottom, caught half way, rethrown, finally. */
public final class Exceptions {
    static long sink;

    private Exceptions() {
    }

    public static void round() {
        for (int i = 0; i < 20; i++) {
            try {
                sink += thrower(60, i);
            } catch (IllegalStateException e) {
                sink += e.getMessage().length();
            }
            sink += catcher(40, i);
        }
    }

    static int thrower(int depth, int seed) {
        if (depth == 0) {
            sink += spin(seed);
            throw new IllegalStateException("bottom " + seed);
        }
        return thrower(depth - 1, seed + 1) + 1;
    }

    /** Catches the exception thrown 40 frames below at depth 20, after it passed 20 finally blocks. */
    static int catcher(int depth, int seed) {
        try {
            if (depth == 0) {
                sink += spin(seed);
                throw new ArithmeticException("bottom");
            }
            return catcher(depth - 1, seed) + 1;
        } catch (ArithmeticException e) {
            if (depth == 20) {
                return spin(depth) > 0 ? -1 : -2;
            }
            throw e;
        } finally {
            sink++;
        }
    }

    static int spin(int seed) {
        int acc = seed;
        for (int i = 0; i < 20_000; i++) {
            acc = acc * 31 + (i ^ (acc >>> 7));
        }
        return acc;
    }
}
