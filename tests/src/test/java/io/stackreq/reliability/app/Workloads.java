package io.stackreq.reliability.app;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

import io.stackreq.testapp.BusyLoops;

/**
 * Loops the reliability workloads run on their signalled threads, each keeping a thread in a
 * different state when the signal lands: compiled Java arithmetic, allocation (runtime calls,
 * GC), array copies (code-cache stubs), sleeping (blocked in the VM), and JNI calls.
 */
final class Workloads {
    static volatile long sink;

    private Workloads() {
    }

    static void copy(BooleanSupplier running) {
        byte[] from = new byte[1 << 20];
        byte[] to = new byte[1 << 20];
        while (running.getAsBoolean()) {
            for (int i = 0; i < 16; i++) {
                System.arraycopy(from, i, to, 0, from.length - i);
            }
            sink += to[17];
        }
    }

    static void sleep(BooleanSupplier running) {
        while (running.getAsBoolean()) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    static void jni(BooleanSupplier running) {
        while (running.getAsBoolean()) {
            for (int i = 0; i < 1000; i++) {
                sink += Chaos.currentTid();
            }
        }
    }

    /** The loop for kind 0..4: burn, allocate, copy, sleep, jni. */
    static void run(int kind, BooleanSupplier running) {
        switch (kind % 5) {
            case 0: BusyLoops.burn(running); break;
            case 1: BusyLoops.allocate(running); break;
            case 2: copy(running); break;
            case 3: sleep(running); break;
            default: jni(running);
        }
    }

    static final String[] KINDS = {"burn", "allocate", "copy", "sleep", "jni"};

    /**
     * Starts a daemon thread per kind, named prefix + its KINDS name, that registers with libchaos and then runs
     * the kind's loop while running; returns once every one has registered.
     */
    static void startRegistered(String prefix, AtomicBoolean running, int... kinds) throws InterruptedException {
        CountDownLatch registered = new CountDownLatch(kinds.length);
        for (int kind : kinds) {
            Thread worker = new Thread(() -> {
                Chaos.register();
                registered.countDown();
                run(kind, running::get);
            }, prefix + KINDS[kind]);
            worker.setDaemon(true);
            worker.start();
        }
        registered.await();
    }
}
