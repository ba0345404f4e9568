package io.stackreq.testapp;

/**
 * Work whose samples land in the JVM's dispatch code (issue 12, item 5): exceptions thrown four
 * calls deep and caught at the bottom, through frames without a handler (C2's rethrow stub and the
 * exception blob) and one with a {@code finally}; megamorphic interface and virtual calls (itable
 * and vtable stubs). The call chain is {@link #run} → {@link #depth1} → … → {@link #depth4}, each
 * calling the next and nothing else of this class, so a stack that is right has them in that
 * order without a gap, with only {@link Shape} implementations and JDK methods above the deepest.
 */
public final class DispatchWork {
    /** The chain's methods below the top, in call order. */
    public static final String[] CHAIN = {"run", "depth1", "depth2", "depth3", "depth4"};
    private static final int CALLS_PER_ROUND = 256;

    private DispatchWork() {
    }

    interface Shape {
        long area(long x);
    }

    abstract static class Base implements Shape {
        abstract long perimeter(long x);
    }

    static final class A extends Base {
        public long area(long x) { return x * 3; }
        long perimeter(long x) { return x + 1; }
    }

    static final class B extends Base {
        public long area(long x) { return x ^ 5; }
        long perimeter(long x) { return x + 2; }
    }

    static final class C extends Base {
        public long area(long x) { return x + 7; }
        long perimeter(long x) { return x * 5; }
    }

    static final class D extends Base {
        public long area(long x) { return x - 11; }
        long perimeter(long x) { return x ^ 9; }
    }

    static final class E extends Base {
        public long area(long x) { return x << 1; }
        long perimeter(long x) { return x - 3; }
    }

    static final class F extends Base {
        public long area(long x) { return x >>> 1; }
        long perimeter(long x) { return x | 4; }
    }

    /** Runs rounds until the deadline (System.nanoTime); returns a value that depends on all of them. */
    public static long run(long deadlineNanos) {
        Base[] shapes = {new A(), new B(), new C(), new D(), new E(), new F()};
        long sum = 0;
        int round = 0;
        do {
            try {
                sum += depth1(round, shapes);
            } catch (IllegalStateException e) {
                sum += e.getMessage().length();
            }
            round++;
        } while (System.nanoTime() - deadlineNanos < 0);
        return sum;
    }

    static long depth1(int round, Base[] shapes) {
        return depth2(round, shapes) + 1;
    }

    static long depth2(int round, Base[] shapes) {
        long result = 0;
        try {
            result = depth3(round, shapes);
        } finally {
            result++;
        }
        return result;
    }

    static long depth3(int round, Base[] shapes) {
        return depth4(round, shapes) * 3;
    }

    static long depth4(int round, Base[] shapes) {
        long x = round;
        for (int i = 0; i < CALLS_PER_ROUND; i++) {
            Base shape = shapes[(round + i) % shapes.length];
            x = ((Shape) shape).area(x) + shape.perimeter(x);
        }
        if ((round & 3) == 0) {
            throw new IllegalStateException(x < 0 ? "negative" : "positive");
        }
        return x;
    }
}
