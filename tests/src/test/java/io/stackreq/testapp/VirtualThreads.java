package io.stackreq.testapp;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import jdk.jfr.Recording;

/**
 * Requests from mounted virtual threads (JDK 21+): CPU timers armed on the carrier threads
 * (librequester.so's handler requests with its ucontext) while {@code threads} virtual threads
 * named {@code vt-N} burn CPU in {@link #virtualWork} and yield between rounds, so they mount and
 * unmount again and again; each also requests once for itself without a ucontext (id
 * {@link #EXPLICIT_IDS} + N). Run with {@code -Djdk.virtualThreadScheduler.parallelism=2}.
 *
 * <p>Arguments: {@code out} report, {@code rec} recording (both required); {@code threads} (2000);
 * {@code rounds} (5). Report: the timer results ({@link Requester#putTimerResults}),
 * {@code carriersArmed}, {@code explicit} (ids whose request returned NONE) and
 * {@code explicitNotNone}.
 */
public final class VirtualThreads {
    public static final long EXPLICIT_IDS = 1_000_000_000L;
    static volatile long sink;

    private VirtualThreads() {
    }

    public static void main(String[] args) throws Exception {
        Args a = Args.parse(args);
        int threads = a.getInt("threads", 2000);
        int rounds = a.getInt("rounds", 5);
        Report report = Report.afterEnable(Requester.enable());
        Recording recording = new Recording();
        recording.enable("jdk.StackTraceRequest");
        recording.setDestination(a.path("rec"));
        recording.start();
        report.put("carriersArmed", armCarriers());
        List<Long> explicit = new ArrayList<>();
        List<Thread> started = new ArrayList<>();
        for (int n = 0; n < threads; n++) {
            long id = EXPLICIT_IDS + n;
            Thread thread = Scenarios.startVirtualThread("vt-" + n, () -> {
                for (int round = 0; round < rounds; round++) {
                    virtualWork(round == rounds / 2 ? id : 0);
                    Thread.yield();
                }
            });
            started.add(thread);
            explicit.add(id);
        }
        for (Thread thread : started) {
            thread.join();
        }
        recording.stop();
        Requester.putTimerResults(report);
        StringBuilder ids = new StringBuilder();
        for (long id : explicit) {
            ids.append(id).append(' ');
        }
        report.put("explicit", ids.toString().trim());
        report.put("explicitNotNone", EXPLICIT_NOT_NONE.get());
        report.write(a.path("out"));
    }

    private static final AtomicInteger EXPLICIT_NOT_NONE = new AtomicInteger();

    /**
     * Burns about 0.2 ms of CPU; with an id, requests for itself (no ucontext) after the first
     * thousand steps. At least those run: a thread descheduled for 0.2 ms before its first check of
     * the clock (a busy machine) still makes its request, which main reports as made.
     */
    static void virtualWork(long id) {
        long end = System.nanoTime() + 200_000;
        long x = 1;
        do {
            for (int i = 0; i < 1000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
            if (id != 0) {
                if (Requester.request(null, id) != JvmtiError.NONE) {
                    EXPLICIT_NOT_NONE.incrementAndGet();
                }
                id = 0;
            }
        } while (System.nanoTime() < end);
        sink += x;
    }

    /**
     * Arms a CPU timer on each of the two carrier threads: pairs of virtual threads that keep
     * their carrier busy for a while run startTimer at the same time, so each pair lands on both.
     */
    private static int armCarriers() throws Exception {
        AtomicInteger armed = new AtomicInteger();
        for (int attempt = 0; attempt < 32 && armed.get() < 2; attempt++) {
            List<Thread> pair = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                pair.add(Scenarios.startVirtualThread("arm-" + attempt + "-" + i, () -> {
                    long end = System.nanoTime() + 20_000_000;
                    while (System.nanoTime() < end) {
                        sink++;
                    }
                    if (Requester.startTimer(1000) == 0) {
                        armed.incrementAndGet();
                    }
                }));
            }
            for (Thread thread : pair) {
                thread.join();
            }
        }
        return armed.get();
    }
}
