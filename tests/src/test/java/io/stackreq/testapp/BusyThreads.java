package io.stackreq.testapp;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

import jdk.jfr.EventSettings;
import jdk.jfr.Recording;

/**
 * N threads spin in {@link #burn} with a CPU-time timer armed on each; the timer handler (in
 * librequester.so) calls RequestStackTrace(env, NULL, ucontext, id).
 *
 * <p>Arguments ({@code key=value}): {@code out} report file (required); {@code threads} (4);
 * {@code seconds} (3); {@code intervalUs} (1000); {@code enable} call EnableRequestStackTrace
 * first (true); {@code recordTo} start a recording in Java that enables jdk.StackTraceRequest
 * and stop it to this file after the threads end; {@code throttle} that recording's throttle;
 * {@code disable} call DisableRequestStackTrace at the end (false); {@code pokeUs} every that
 * many microseconds send each busy thread another signal ({@link Requester#poke}; 0 = never);
 * {@code chainLibrary} a libnativechain_*.so to load: the threads then spin in its C call chain
 * ({@link NativeChain#callChain}) instead of {@link #burn}; {@code copy} (false) the threads copy
 * int arrays with System.arraycopy ({@link #copyArrays}) instead; {@code dispatch} (false) they
 * throw exceptions and make megamorphic calls ({@link DispatchWork#run}) instead; {@code handles}
 * (false) they call through method handles ({@link MethodHandleWork#run}) instead; {@code exit} once
 * the report is written, print {@code BusyThreads: exit N} and leave with {@code System.exit(N)}.
 *
 * <p>Report: {@code enable.rc}, {@code disable.rc}, the timer results
 * ({@link Requester#putTimerResults}), {@code elapsedNanos} (from releasing the threads to the
 * last one ending), {@code pokes} and {@code pokeErrors} (other signals sent, failed),
 * {@code jfrInitialized} (whether JFR was ever started in this JVM) and {@code tid.<thread name>}
 * per busy thread.
 */
public final class BusyThreads {
    static volatile long sink;

    private BusyThreads() {
    }

    public static void main(String[] args) throws Exception {
        Args a = Args.parse(args);
        Path out = a.path("out");
        int threadCount = a.getInt("threads", 4);
        long nanos = (long) (a.getDouble("seconds", 3) * 1e9);
        int intervalUs = a.getInt("intervalUs", 1000);
        Report report = new Report();
        boolean nativeChain = a.has("chainLibrary");
        boolean copy = a.getBoolean("copy", false);
        boolean dispatch = a.getBoolean("dispatch", false);
        boolean handles = a.getBoolean("handles", false);
        if (handles) {
            // Its method handles are looked up before the timers start: in the threads' samples
            // the lookup's class spinning would sit below MethodHandleWork's static initializer.
            MethodHandleWork.prepare();
        }
        if (nativeChain) {
            NativeChain.load(a.get("chainLibrary"));
        }
        if (a.getBoolean("enable", true)) {
            report.put("enable.rc", Requester.enable());
        }
        Recording recording = null;
        if (a.has("recordTo")) {
            recording = new Recording();
            EventSettings settings = recording.enable("jdk.StackTraceRequest");
            if (a.has("throttle")) {
                settings.with("throttle", a.get("throttle"));
            }
            recording.setDestination(a.path("recordTo"));
            recording.start();
        }

        CountDownLatch armed = new CountDownLatch(threadCount);
        CountDownLatch go = new CountDownLatch(1);
        long[] deadline = new long[1];
        int[] tids = new int[threadCount];
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = new ArrayList<>();
        for (int i = 0; i < threadCount; i++) {
            int index = i;
            Thread thread = new Thread(() -> {
                try {
                    tids[index] = Requester.currentTid();
                    Requester.startTimerOrThrow(intervalUs);
                    armed.countDown();
                    go.await();
                    sink += nativeChain ? NativeChain.callChain(deadline[0])
                            : copy ? copyArrays(deadline[0])
                            : dispatch ? DispatchWork.run(deadline[0])
                            : handles ? MethodHandleWork.run(deadline[0]) : burn(deadline[0]);
                    Requester.stopTimerOrThrow();
                } catch (Throwable t) {
                    synchronized (failures) {
                        failures.add(t);
                    }
                    armed.countDown();
                }
            }, "busy-" + i);
            threads.add(thread);
            thread.start();
        }
        armed.await();
        long start = System.nanoTime();
        deadline[0] = start + nanos;
        go.countDown();
        int pokeUs = a.getInt("pokeUs", 0);
        long[] pokes = new long[2];
        Thread poker = new Thread(() -> pokeUntilDone(threads, tids, pokeUs, pokes), "poker");
        if (pokeUs > 0) {
            poker.start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        long elapsed = System.nanoTime() - start;
        if (pokeUs > 0) {
            poker.join();
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException("busy thread failed", failures.get(0));
        }
        if (recording != null) {
            recording.stop();
            recording.close();
        }
        if (a.getBoolean("disable", false)) {
            report.put("disable.rc", Requester.disable());
        }
        Requester.putTimerResults(report);
        report.put("elapsedNanos", elapsed);
        report.put("pokes", pokes[0]);
        report.put("pokeErrors", pokes[1]);
        report.put("jfrInitialized", jdk.jfr.FlightRecorder.isInitialized());
        for (int i = 0; i < threadCount; i++) {
            report.put("tid.busy-" + i, tids[i]);
        }
        report.write(out);
        if (a.has("exit")) {
            int exit = a.getInt("exit", 0);
            System.out.println("BusyThreads: exit " + exit);
            System.exit(exit);
        }
    }

    private static void pokeUntilDone(List<Thread> threads, int[] tids, int pokeUs, long[] pokes) {
        while (threads.stream().anyMatch(Thread::isAlive)) {
            for (int i = 0; i < tids.length; i++) {
                if (threads.get(i).isAlive()) {
                    if (Requester.poke(tids[i]) == 0) {
                        pokes[0]++;
                    } else if (threads.get(i).isAlive()) {
                        pokes[1]++;
                    }
                }
            }
            LockSupport.parkNanos(pokeUs * 1000L);
        }
    }

    /** Copies 256 KiB arrays until the deadline: nearly all of its time is in the JVM's arraycopy stub. */
    static long copyArrays(long deadlineNanos) {
        int[] from = new int[1 << 16];
        int[] to = new int[1 << 16];
        long copies = 0;
        do {
            from[(int) (copies & 0xffff)] = (int) copies;
            System.arraycopy(from, 0, to, 0, from.length);
            copies++;
        } while (System.nanoTime() - deadlineNanos < 0);
        return copies + to[7];
    }

    /** The busy method every timer request should find on top of the stack. */
    static long burn(long deadlineNanos) {
        long x = 0x9E3779B97F4A7C15L;
        while (true) {
            for (int i = 0; i < 100_000; i++) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
            }
            if (System.nanoTime() - deadlineNanos >= 0) {
                return x;
            }
        }
    }
}
