package io.stackreq.testapp;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Work whose frames the interpreter's method handle linkers enter: {@link #run} → {@link #depth1}
 * → {@link #depth2} → {@link #depth3} → {@link #spin}, each of the first three calling the next
 * through a {@link MethodHandle} ({@code invokeExact}: static, virtual, static) and nothing else
 * of this class. Interpreted (the test runs it with {@code -Xint}), such a call goes through a
 * linker ({@code linkToStatic}, {@code linkToVirtual}) that drops the trailing MemberName and
 * pushes the return address again in its place, so the method it enters, having no locals beyond
 * its parameters, saves the word of its own return address as its sender's stack pointer. A stack
 * that is right has the chain in call order without a gap, {@code java.lang.invoke} frames
 * between its methods.
 */
public final class MethodHandleWork {
    /** The chain's methods, in call order. */
    public static final String[] CHAIN = {"run", "depth1", "depth2", "depth3", "spin"};
    private static final MethodHandle DEPTH1;
    private static final MethodHandle DEPTH2;
    private static final MethodHandle DEPTH3;
    private static final MethodHandleWork INSTANCE = new MethodHandleWork();

    static {
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        MethodType longToLong = MethodType.methodType(long.class, long.class);
        try {
            DEPTH1 = lookup.findStatic(MethodHandleWork.class, "depth1", longToLong);
            DEPTH2 = lookup.findVirtual(MethodHandleWork.class, "depth2", longToLong);
            DEPTH3 = lookup.findStatic(MethodHandleWork.class, "depth3", longToLong);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private MethodHandleWork() {
    }

    /** Initializes the class: looks its method handles up. */
    public static void prepare() {
    }

    /** Runs rounds until the deadline (System.nanoTime); returns a value that depends on all of them. */
    public static long run(long deadlineNanos) throws Throwable {
        long sum = 0;
        do {
            sum += (long) DEPTH1.invokeExact(sum);
        } while (System.nanoTime() - deadlineNanos < 0);
        return sum;
    }

    // depth1 .. depth3: no locals beyond their parameters (the linkers' entry leaves no room between
    // the return address and the arguments then).
    static long depth1(long x) throws Throwable {
        return (long) DEPTH2.invokeExact(INSTANCE, x) + 1;
    }

    long depth2(long x) throws Throwable {
        return (long) DEPTH3.invokeExact(x) * 3;
    }

    static long depth3(long x) {
        return spin(x) ^ x;
    }

    static long spin(long x) {
        long y = x;
        for (int i = 0; i < 2_000; i++) {
            y = y * 31 + i;
        }
        return y;
    }
}
