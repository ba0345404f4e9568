package io.stackreq.testapp;

/**
 * Loaded again and again by throw-away class loaders in {@link Stress}, so that timer requests
 * land in methods of classes that are unloaded before (or while) the emitter resolves them.
 */
public final class Loadable implements java.util.function.LongUnaryOperator {
    @Override
    public long applyAsLong(long seed) {
        long x = seed | 1;
        for (int i = 0; i < 50_000; i++) {
            x ^= x << 7;
            x ^= x >>> 9;
        }
        return x;
    }
}
