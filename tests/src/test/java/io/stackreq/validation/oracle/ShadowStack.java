package io.stackreq.validation.oracle;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The shadow stack of each thread, maintained by the code {@link OracleAgent} weaves into the
 * workload classes, in memory liboracle.so owns (so its signal handler can copy it at any
 * instruction). Layout, in 32-bit native-order ints (oracle.c has the same):
 *
 * <pre>
 *  0 depth      frames in use
 *  1 flag       NONE, CALLING (a call is under way: the callee's frame may exist before its
 *               push), EXITING (a method popped itself: its frame may still exist)
 *  2 counter    method entries so far (every period-th entry runs layer (a) or (b))
 *  3 tag        the workload this thread works for
 *  4 overflow   pushes beyond MAX_FRAMES (not tracked; snapshots with overflow are skipped)
 *  5 corrupt    unused by Java (see CORRUPT)
 *  6 popped     the frame id the last exit popped
 *  7 period     run layer (a) or (b) every period-th method entry (per workload)
 *  8...         frames, bottom first: (method id, line of the call the frame is making)
 * </pre>
 *
 * Stores that change what the stack says (depth, flag) are volatile: the JIT keeps them in
 * program order with the frame stores before them, so a signal on this thread sees them in
 * that order.
 */
public final class ShadowStack {
    public static final int NONE = 0;
    public static final int CALLING = 1;
    public static final int EXITING = 2;
    public static final int MAX_FRAMES = 4096;

    private static final int DEPTH = 0;
    private static final int FLAG = 4;
    private static final int COUNTER = 8;
    private static final int TAG = 12;
    private static final int OVERFLOW = 16;
    private static final int POPPED = 24;
    private static final int PERIOD = 28;
    private static final int FRAMES = 32;

    private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());
    private static final ThreadLocal<ByteBuffer> CURRENT = ThreadLocal.withInitial(ShadowStack::attach);
    /** tag, check period of the workload this thread (and threads it starts) works for. */
    private static final InheritableThreadLocal<int[]> WORKLOAD = new InheritableThreadLocal<>() {
        @Override
        protected int[] initialValue() {
            return new int[] {0, Integer.MAX_VALUE};
        }
    };
    private static final boolean BIASED_LAYER = "b".equals(System.getProperty("stackreq.oracle.layers"));
    /**
     * Whether liboracle.so is loaded, so that shadow stacks live in its memory and the natives of
     * {@link OracleNative} resolve. With {@code -Dstackreq.oracle.attach=true} the JVM starts
     * without it: until the agent's {@code Agent_OnAttach} sets this, each thread keeps its shadow
     * stack in a buffer of its own and runs no checks (its period, Integer.MAX_VALUE, is not reached
     * in any warm-up of fewer than 2^31 method entries).
     */
    static volatile boolean oracleLoaded = !Boolean.getBoolean("stackreq.oracle.attach");
    /** exit() of a method that is not on top of the shadow stack: a weaving bug. */
    public static final AtomicLong CORRUPT = new AtomicLong();

    private ShadowStack() {
    }

    private static ByteBuffer attach() {
        boolean loaded = oracleLoaded;
        ByteBuffer buffer = (loaded ? OracleNative.attach() : ByteBuffer.allocateDirect(FRAMES + 8 * MAX_FRAMES))
                .order(ByteOrder.nativeOrder());
        buffer.putInt(TAG, WORKLOAD.get()[0]);
        buffer.putInt(PERIOD, loaded ? WORKLOAD.get()[1] : Integer.MAX_VALUE);
        return buffer;
    }

    /**
     * The workload this thread (and threads it starts from now on) works for, and how often its
     * method entries run layer (a) or (b): every period-th entry. Called with no woven method on
     * the thread's stack: it also moves the shadow stack into liboracle.so's memory once that is
     * loaded (and there the thread gets its signals).
     */
    public static void setWorkload(int tag, int period) {
        WORKLOAD.set(new int[] {tag, period});
        CURRENT.set(attach());
    }

    /** Whether liboracle.so is loaded yet. */
    public static boolean isOracleLoaded() {
        return oracleLoaded;
    }

    /** First thing in every woven method. */
    public static void enter(int id) {
        ByteBuffer b = CURRENT.get();
        int depth = b.getInt(DEPTH);
        int overflow = b.getInt(OVERFLOW);
        if (depth < MAX_FRAMES && overflow == 0) {
            int at = FRAMES + 8 * depth;
            b.putInt(at, id);
            b.putInt(at + 4, -1);
            INT.setVolatile(b, DEPTH, depth + 1);
        } else {
            b.putInt(OVERFLOW, overflow + 1);
        }
        INT.setVolatile(b, FLAG, NONE);
        int count = b.getInt(COUNTER) + 1;
        b.putInt(COUNTER, count);
        if (count % b.getInt(PERIOD) == 0) {
            if (BIASED_LAYER) {
                OracleNative.requestBiased();
            } else {
                OracleNative.checkStack();
            }
        }
    }

    /** Before every return, and in the catch-all handler that rethrows. */
    public static void exit(int id) {
        ByteBuffer b = CURRENT.get();
        INT.setVolatile(b, FLAG, EXITING);
        int overflow = b.getInt(OVERFLOW);
        if (overflow > 0) {
            b.putInt(OVERFLOW, overflow - 1);
            return;
        }
        int depth = b.getInt(DEPTH);
        if (depth == 0 || b.getInt(FRAMES + 8 * (depth - 1)) != id) {
            CORRUPT.incrementAndGet();
            return;
        }
        b.putInt(POPPED, id);
        INT.setVolatile(b, DEPTH, depth - 1);
    }

    /** Before every call instruction of a woven method: the line of the call. */
    public static void call(int line) {
        ByteBuffer b = CURRENT.get();
        int depth = b.getInt(DEPTH);
        if (depth > 0 && b.getInt(OVERFLOW) == 0) {
            b.putInt(FRAMES + 8 * (depth - 1) + 4, line);
        }
        INT.setVolatile(b, FLAG, CALLING);
    }

    /**
     * Before every instruction that may initialize a class ({@code new}, {@code getstatic},
     * {@code putstatic}): its line. A class's static initializer is a call without a call
     * instruction, and the woven methods it runs are pushed above a frame at that instruction.
     */
    public static void at(int line) {
        ByteBuffer b = CURRENT.get();
        int depth = b.getInt(DEPTH);
        if (depth > 0 && b.getInt(OVERFLOW) == 0) {
            b.putInt(FRAMES + 8 * (depth - 1) + 4, line);
        }
    }

    /** After every call instruction, and at the start of every exception handler. */
    public static void returned() {
        INT.setVolatile(CURRENT.get(), FLAG, NONE);
    }
}
