package io.stackreq.testapp;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

// tests/aarch64.sh's native=on program (java NativeChainWorkload LIBRARY [SECONDS]): loads the
// chain library (tests/src/test/native/native_chain.c, cross-built for aarch64) and runs
// NativeChain's fixed C call chain on the main thread and one more until each has used the CPU
// seconds given (default 3): CPU time, so the number of samples does not depend on how busy the
// machine is. In the package of NativeChain, whose native method the library implements.
public final class NativeChainWorkload {
    static volatile long sink;

    static void work(ThreadMXBean threads, long cpuNanos) {
        long until = threads.getCurrentThreadCpuTime() + cpuNanos;
        while (threads.getCurrentThreadCpuTime() < until) {
            // One call of the chain: callChain's deadline is already past when it returns.
            sink += NativeChain.callChain(System.nanoTime());
        }
    }

    public static void main(String[] args) throws InterruptedException {
        NativeChain.load(args[0]);
        long cpuNanos = (args.length > 1 ? Long.parseLong(args[1]) : 3) * 1_000_000_000L;
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Thread other = new Thread(() -> work(threads, cpuNanos), "worker");
        other.start();
        work(threads, cpuNanos);
        other.join();
        System.out.println("NativeChainWorkload: done");
    }
}
