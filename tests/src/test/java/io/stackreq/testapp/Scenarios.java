package io.stackreq.testapp;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jdk.jfr.Recording;

/**
 * Requests from normal code (JNI, ucontext NULL) that provoke each return code of
 * RequestStackTrace. Usage: {@code Scenarios <scenario> out=<report> rec=<recording>}. Every
 * scenario that starts a recording enables jdk.StackTraceRequest in it (unless it says otherwise)
 * and stops it to {@code rec}; report keys are {@code rc.<step>} with the return codes.
 */
public final class Scenarios {
    static volatile long sink;

    private Scenarios() {
    }

    public static void main(String[] args) throws Exception {
        String scenario = args[0];
        Args a = Args.parse(java.util.Arrays.copyOfRange(args, 1, args.length));
        Path rec = a.has("rec") ? a.path("rec") : null;
        Report report = new Report();
        report.put("onLoad", Requester.onLoadResult());
        report.put("available", Requester.available());
        switch (scenario) {
            case "available":
                break;
            case "wrong-phase": {
                report.put("enable.rc", Requester.enable());
                Thread other = startSleeper();
                report.put("rc.self", Requester.request(null, 1));
                report.put("rc.other", Requester.request(other, 2));
                Recording recording = startRecording(rec, true);
                report.put("rc.afterRecording", Requester.request(null, 3));
                stop(recording);
                stopSleeper(other);
                break;
            }
            case "not-available-event-off": {
                report.put("enable.rc", Requester.enable());
                Recording recording = startRecording(rec, false);
                report.put("rc.self", Requester.request(null, 1));
                report.put("rc.current", Requester.request(Thread.currentThread(), 2));
                stop(recording);
                break;
            }
            case "enable-disable": {
                Recording recording = startRecording(rec, true);
                report.put("initialize.rc", Requester.initialize());
                report.put("initializeAgain.rc", Requester.initialize());
                report.put("rc.beforeEnable", Requester.request(null, 1));
                report.put("enable.rc", Requester.enable());
                report.put("rc.enabled", Requester.request(null, 2));
                report.put("disable.rc", Requester.disable());
                report.put("rc.afterDisable", Requester.request(null, 3));
                report.put("disableAgain.rc", Requester.disable());
                report.put("enableAgain.rc", Requester.enable());
                report.put("rc.enabledAgain", Requester.request(null, 4));
                stop(recording);
                break;
            }
            case "invalid-thread":
                enabledWhileRecording(report, rec, () -> {
                    report.put("rc.string", Requester.requestObject("not a thread", 1));
                    report.put("rc.object", Requester.requestObject(new Object(), 2));
                });
                break;
            case "thread-not-alive":
                enabledWhileRecording(report, rec, () -> {
                    Thread unstarted = new Thread(() -> { }, "unstarted");
                    report.put("rc.unstarted", Requester.request(unstarted, 1));
                    Thread terminated = new Thread(() -> { }, "terminated");
                    terminated.start();
                    terminated.join();
                    report.put("rc.terminated", Requester.request(terminated, 2));
                });
                break;
            case "virtual-thread":
                enabledWhileRecording(report, rec, () -> {
                    CountDownLatch release = new CountDownLatch(1);
                    CountDownLatch running = new CountDownLatch(1);
                    Thread virtual = startVirtualThread(null, () -> {
                        running.countDown();
                        await(release);
                    });
                    running.await();
                    report.put("isVirtual", isVirtual(virtual));
                    report.put("rc.virtual", Requester.request(virtual, 1));
                    release.countDown();
                    virtual.join();
                });
                break;
            case "none-current-thread":
                enabledWhileRecording(report, rec, () -> {
                    report.put("rc.current", callerMethod(Thread.currentThread(), 1));
                });
                break;
            case "jni-null-ucontext":
                enabledWhileRecording(report, rec, () -> {
                    report.put("rc.self", callerMethod(null, 1));
                });
                break;
            case "jfr-excluded":
                enabledWhileRecording(report, rec, () -> {
                    requestsOfAStreamThread(report);
                    report.put("rc.main", Requester.request(null, 4));
                });
                break;
            case "ending-threads":
                enabledWhileRecording(report, rec, () -> endThreads(ENDING_THREADS, report));
                break;
            case "self-loop":
                enabledWhileRecording(report, rec, () -> {
                    int[] failures = selfLoop(SELF_LOOP_REQUESTS, report);
                    report.put("notNone", failures[0]);
                });
                break;
            case "other-thread":
                enabledWhileRecording(report, rec, () -> {
                    Thread sleeper = startSleeper();
                    report.put("rc.other", Requester.request(sleeper, 1));
                    Thread.sleep(300);
                    stopSleeper(sleeper);
                });
                break;
            default:
                throw new IllegalArgumentException("unknown scenario " + scenario);
        }
        report.write(a.path("out"));
    }

    /**
     * Enables the requests ({@code enable.rc}), then runs steps inside a recording with jdk.StackTraceRequest
     * enabled, into rec.
     */
    static void enabledWhileRecording(Report report, Path rec, Steps steps) throws Exception {
        report.put("enable.rc", Requester.enable());
        Recording recording = startRecording(rec, true);
        steps.run();
        stop(recording);
    }

    /**
     * Runs threads that end, several at a time, while librequester requests at each ThreadEnd;
     * reports the count of ended workers and the ThreadEnd requests' return codes as
     * {@code threadEnd.N}.
     */
    static void endThreads(int count, Report report) throws InterruptedException {
        Thread[] threads = new Thread[count];
        for (int i = 0; i < count; i++) {
            threads[i] = new Thread(() -> afterRequest(System.nanoTime()), "ending-" + i);
            threads[i].start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        report.put("ended", count);
        Requester.putErrorCounts(report, "threadEnd.", Requester.threadEndErrorCounts());
    }

    /**
     * A RecordingStream's dispatch thread, which JFR excludes from recording while the stream
     * runs, requests for itself from a flush callback (ids 1 and 2); then this thread requests
     * for the stream's thread (id 3).
     */
    static void requestsOfAStreamThread(Report report) throws InterruptedException {
        CountDownLatch requested = new CountDownLatch(1);
        Thread[] streamThread = new Thread[1];
        try (JfrStream stream = JfrStream.open()) {
            stream.onFlush(() -> {
                if (requested.getCount() == 0) return;
                streamThread[0] = Thread.currentThread();
                report.put("rc.streamSelf", Requester.request(null, 1));
                report.put("rc.streamCurrent", Requester.request(Thread.currentThread(), 2));
                requested.countDown();
            });
            stream.startAsync();
            if (!requested.await(60, TimeUnit.SECONDS)) throw new IllegalStateException("no flush in 60 s");
            report.put("rc.ofStreamThread", Requester.request(streamThread[0], 3));
        }
    }

    public static final int SELF_LOOP_REQUESTS = 1000;
    public static final int ENDING_THREADS = 50;

    /**
     * Requests for itself from a loop, odd ids with thread NULL and even ids with the current
     * thread passed, each call on a line of its own (reported as line.null and line.current), and
     * runs other code right after each, so a stack taken later than the call would show it.
     */
    static int[] selfLoop(int requests, Report report) {
        int[] notNone = new int[1];
        report.put("line.null", new Throwable().getStackTrace()[0].getLineNumber() + 4);
        report.put("line.current", new Throwable().getStackTrace()[0].getLineNumber() + 4);
        for (int id = 1; id <= requests; id++) {
            int rc = id % 2 == 1
                    ? Requester.request(null, id)
                    : Requester.request(Thread.currentThread(), id);
            if (rc != JvmtiError.NONE) notNone[0]++;
            afterRequest(id);
        }
        return notNone;
    }

    static void afterRequest(long seed) {
        long x = seed;
        for (int i = 0; i < 20_000; i++) x = x * 6364136223846793005L + 1442695040888963407L;
        sink += x;
    }

    /** Requests, then stays in this method for ~300 ms so the biased stack must contain it. */
    static int callerMethod(Thread thread, long userData) throws InterruptedException {
        int rc = Requester.request(thread, userData);
        long end = System.nanoTime() + 300_000_000L;
        long x = 1;
        while (System.nanoTime() - end < 0) {
            for (int i = 0; i < 10_000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
            Thread.sleep(1);
        }
        sink += x;
        return rc;
    }

    private static volatile boolean sleeperStop;

    /** Starts "target-sleeper" and returns once it is inside {@link #sleeperMethod}. */
    static Thread startSleeper() throws InterruptedException {
        CountDownLatch inside = new CountDownLatch(1);
        sleeperStop = false;
        Thread thread = new Thread(() -> sleeperMethod(inside), "target-sleeper");
        thread.start();
        inside.await();
        return thread;
    }

    static void sleeperMethod(CountDownLatch inside) {
        inside.countDown();
        while (!sleeperStop) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    static void stopSleeper(Thread thread) throws InterruptedException {
        sleeperStop = true;
        thread.join();
    }

    static Recording startRecording(Path destination, boolean enableEvent) throws Exception {
        Recording recording = new Recording();
        if (enableEvent) {
            recording.enable("jdk.StackTraceRequest");
        }
        recording.enable("jdk.ThreadSleep");
        recording.setDestination(destination);
        recording.start();
        return recording;
    }

    static void stop(Recording recording) {
        recording.stop();
        recording.close();
    }

    static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Thread.ofVirtual().start(task) by reflection: compiled for 17, run on 21+ only. */
    /** Thread.ofVirtual(), named when name is not null, started (by reflection: built for JDK 17). */
    static Thread startVirtualThread(String name, Runnable task) throws Exception {
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        Class<?> builderClass = Class.forName("java.lang.Thread$Builder");
        if (name != null) {
            builder = builderClass.getMethod("name", String.class).invoke(builder, name);
        }
        return (Thread) builderClass.getMethod("start", Runnable.class).invoke(builder, task);
    }

    static boolean isVirtual(Thread thread) throws Exception {
        return (Boolean) Thread.class.getMethod("isVirtual").invoke(thread);
    }
}
