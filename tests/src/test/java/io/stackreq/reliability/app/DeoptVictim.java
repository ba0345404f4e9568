package io.stackreq.reliability.app;

import java.util.function.LongUnaryOperator;

/**
 * Deoptimization on demand. Loaded again and again by {@link ThrowAwayLoader}, so every copy
 * starts with fresh profiles: {@link #step} is compiled while it sees one receiver type, then a
 * second, third and fourth type arrive (class-check uncommon traps: deoptimize, recompile
 * bimorphic, then megamorphic) and a branch never taken before is taken (unstable-if trap).
 * When the loader is dropped the classes and their compiled code are unloaded.
 */
public final class DeoptVictim implements LongUnaryOperator {
    interface Shape {
        long area(long x);
    }

    static final class Square implements Shape {
        @Override
        public long area(long x) {
            return x * x;
        }
    }

    static final class Circle implements Shape {
        @Override
        public long area(long x) {
            return 3 * x * x + 1;
        }
    }

    static final class Triangle implements Shape {
        @Override
        public long area(long x) {
            return x * (x + 1) / 2;
        }
    }

    static final class Hexagon implements Shape {
        @Override
        public long area(long x) {
            return 6 * x + (x >>> 2);
        }
    }

    /** Runs {@code rounds} steps with 1, 2, 3 and then 4 receiver types. */
    @Override
    public long applyAsLong(long rounds) {
        Shape[] shapes = {new Square(), new Circle(), new Triangle(), new Hexagon()};
        long sum = 0;
        for (int kinds = 1; kinds <= shapes.length; kinds++) {
            for (long i = 0; i < rounds; i++) {
                sum += step(shapes[(int) (i % kinds)], i, kinds);
            }
        }
        return sum;
    }

    static long step(Shape shape, long i, int kinds) {
        long value = shape.area(i & 1023);
        if (kinds > 2) {
            value ^= i;
        }
        return value;
    }
}
