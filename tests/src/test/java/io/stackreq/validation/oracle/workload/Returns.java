package io.stackreq.validation.oracle.workload;

/**
 * Three threads at once, each an interpreted method calling a compiled one, which calls an
 * interpreted one in a loop (the oracle's JVMs exclude {@link #INTERPRETED} from compilation): each
 * inner call enters the interpreter from compiled code and returns into it through the
 * interpreter's return template, which removes the interpreter's frame before it jumps back. In
 * that window the frame pointer is the compiled caller's, which compiled code need not keep as
 * one: here it still holds the interpreted outer frame's, whose method and bytecode are not the
 * stack's top.
 */
public final class Returns {
    /** The methods the oracle's JVMs exclude from compilation (-XX:CompileCommand=exclude,...). */
    public static final String[] INTERPRETED = {Returns.class.getName() + "::interpretedCaller",
        Returns.class.getName() + "::interpreted"};
    static long sink;

    private Returns() {
    }

    public static void round() throws InterruptedException {
        Thread[] threads = new Thread[3];
        for (int i = 0; i < threads.length; i++) {
            threads[i] = new Thread(Returns::interpretedCaller, "oracle-returns-" + i);
            threads[i].start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
    }

    static void interpretedCaller() {
        sink = compiled(sink);
    }

    static long compiled(long acc) {
        for (int i = 0; i < 20_000; i++) {
            acc = interpreted(acc, i);
        }
        return acc;
    }

    static long interpreted(long x, int i) {
        return x * 31 + i;
    }
}
