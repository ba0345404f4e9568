package io.stackreq.reliability.app;

import java.util.ArrayList;
import java.util.List;

import io.stackreq.testapp.Args;

/**
 * A small workload for {@code stackreq profile}: two threads compute and allocate for
 * {@code seconds} (1). Its recording and sample file are the seeds of the CLI's bad-input tests.
 */
public final class Spin {
    private Spin() {
    }

    public static void main(String[] args) throws Exception {
        Args a = Args.parse(args);
        long end = System.nanoTime() + (long) (a.getDouble("seconds", 1) * 1e9);
        List<Thread> threads = new ArrayList<>();
        for (int kind = 0; kind < 2; kind++) {
            int k = kind;
            Thread thread = new Thread(() -> Workloads.run(k, () -> System.nanoTime() - end < 0), "spin-" + kind);
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
    }
}
