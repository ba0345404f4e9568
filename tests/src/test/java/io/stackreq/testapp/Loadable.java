package io.stackreq.testapp;

import java.util.function.Function;
import java.util.function.LongUnaryOperator;

/**
 * Loaded again and again by throw-away class loaders ({@link Stress}, {@link UnloadedClasses}),
 * so that requests land in methods of classes that are unloaded before (or while) the emitter
 * resolves them. Sees only the platform classes: its loaders' parent is the platform loader.
 */
public final class Loadable implements LongUnaryOperator, Function<Runnable, Long> {
    @Override
    public long applyAsLong(long seed) {
        long x = seed | 1;
        for (int i = 0; i < 50_000; i++) {
            x ^= x << 7;
            x ^= x >>> 9;
        }
        return x;
    }

    /** Works, then runs the callback from inside this class's code. */
    @Override
    public Long apply(Runnable callback) {
        long x = applyAsLong(17);
        callback.run();
        return x;
    }
}
