package io.stackreq.validation.oracle.workload;

/** Threads that start, recurse a little, burn a few milliseconds and end, three at a time. */
public final class Threads {
    static volatile long sink;

    private Threads() {
    }

    public static void round() throws InterruptedException {
        Thread[] threads = new Thread[3];
        for (int i = 0; i < threads.length; i++) {
            threads[i] = new Thread(Threads::child, "oracle-threads-child");
            threads[i].start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
    }

    static void child() {
        sink += work(30, 1);
    }

    static long work(int depth, long acc) {
        if (depth == 0) {
            for (int i = 0; i < 2_000_000; i++) {
                acc = acc * 6364136223846793005L + i;
            }
            return acc;
        }
        return work(depth - 1, acc + depth) * 3;
    }
}
