package io.stackreq.testapp;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jdk.jfr.Recording;

/**
 * What openjdk/jdk pull request 31059's revision promises an agent that never calls Enable and
 * passes the thread by value (libpr_agent.so), step by step in one JVM. Usage:
 * {@code PrRevision out=<report> rec=<recording> [virtual]}. Report keys {@code rc.<step>} hold the
 * return codes; the user data of each step is its documented id (see PrRevisionTest).
 */
public final class PrRevision {
    public static final int LIFECYCLE_ROUNDS = 50;
    public static final String EVENT = "jdk.StackTraceRequest";

    static volatile boolean stopTarget;

    private PrRevision() {
    }

    public static void main(String[] args) throws Exception {
        Args a = Args.parse(args);
        Report report = new Report();
        report.put("rc.noRecording", PrAgent.request(null, 1));
        report.put("rc.noRecordingSignal", PrAgent.signalSelf(2));

        Recording main = new Recording();
        main.setDestination(a.path("rec"));
        main.start();
        report.put("rc.eventOff", PrAgent.request(null, 3));
        report.put("rc.eventOffSignal", PrAgent.signalSelf(4));
        lifecycle(main, report);

        main.enable(EVENT);
        report.put("rc.signal", PrAgent.signalSelf(10));
        report.put("rc.selfByValue", selfByValue(11));
        report.put("rc.selfByPointer", PrAgent.requestByPointer(Thread.currentThread(), 12));
        threadArguments(report);
        callbacks(report);
        throttle(main, report);
        secondRecording(main, report);
        if (JfrStream.available()) excludedThread(report);
        if (a.has("virtual")) virtualThread(report);
        main.stop();
        main.close();
        report.write(a.path("out"));
    }

    /** Ids 1000 + i while enabled (NONE), 2000 + i right after disable (NOT_AVAILABLE). */
    static void lifecycle(Recording recording, Report report) {
        int enabledNone = 0;
        int disabledNotAvailable = 0;
        for (int i = 0; i < LIFECYCLE_ROUNDS; i++) {
            recording.enable(EVENT);
            enabledNone += PrAgent.request(null, 1000 + i) == JvmtiError.NONE ? 1 : 0;
            recording.disable(EVENT);
            disabledNotAvailable += PrAgent.request(null, 2000 + i) == JvmtiError.NOT_AVAILABLE ? 1 : 0;
        }
        report.put("lifecycle.enabledNone", enabledNone);
        report.put("lifecycle.disabledNotAvailable", disabledNotAvailable);
    }

    static int selfByValue(long id) {
        return PrAgent.request(Thread.currentThread(), id);
    }

    /** Another live thread by value (20), by global reference (21), by pointer (22); bad arguments (23-28). */
    static void threadArguments(Report report) throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        stopTarget = false;
        Thread target = new Thread(() -> targetMethod(inside), "pr-target");
        target.start();
        inside.await();
        report.put("rc.otherByValue", PrAgent.request(target, 20));
        report.put("rc.otherGlobal", PrAgent.requestGlobal(target, 21));
        report.put("rc.otherByPointer", PrAgent.requestByPointer(target, 22));
        Thread.sleep(200);
        stopTarget = true;
        target.join();

        Thread unstarted = new Thread(() -> { }, "pr-unstarted");
        report.put("rc.unstarted", PrAgent.request(unstarted, 23));
        Thread terminated = new Thread(() -> { }, "pr-terminated");
        terminated.start();
        terminated.join();
        report.put("rc.terminated", PrAgent.request(terminated, 24));
        report.put("rc.terminatedByPointer", PrAgent.requestByPointer(terminated, 25));
        report.put("rc.unreadable", PrAgent.requestGarbage(0, 26));
        report.put("rc.notAReference", PrAgent.requestGarbage(1, 27));
    }

    static void targetMethod(CountDownLatch inside) {
        inside.countDown();
        while (!stopTarget) {
            Thread.onSpinWait();
        }
    }

    /** ThreadStart of a pr-callback thread: its thread by value (30) and by pointer (31). */
    static void callbacks(Report report) throws InterruptedException {
        PrAgent.setCallbackUserData(30);
        Thread thread = new Thread(() -> { }, "pr-callback");
        thread.start();
        thread.join();
        report.put("rc.callbackByValue", PrAgent.callbackByValue());
        report.put("rc.callbackByPointer", PrAgent.callbackByPointer());
    }

    /** throttle 1/s: ids 3000-3009 all NONE, one event; throttle off: 3100-3109, ten events. */
    static void throttle(Recording recording, Report report) {
        recording.enable(EVENT).with("throttle", "1/s");
        int none = 0;
        for (int i = 0; i < 10; i++) {
            none += PrAgent.request(null, 3000 + i) == JvmtiError.NONE ? 1 : 0;
        }
        recording.enable(EVENT).with("throttle", "off");
        for (int i = 0; i < 10; i++) {
            none += PrAgent.request(null, 3100 + i) == JvmtiError.NONE ? 1 : 0;
        }
        report.put("throttle.none", none);
    }

    /** With the event off in the main recording: a second one enabling it (40), then stopped (41). */
    static void secondRecording(Recording main, Report report) {
        main.disable(EVENT);
        Recording second = new Recording();
        second.enable(EVENT);
        second.start();
        report.put("rc.secondRecording", PrAgent.request(null, 40));
        second.stop();
        report.put("rc.secondStopped", PrAgent.request(null, 41));
        second.close();
        main.enable(EVENT);
    }

    /** A RecordingStream's dispatch thread, which JFR excludes: for itself (50) and named by main (51). */
    static void excludedThread(Report report) throws InterruptedException {
        CountDownLatch requested = new CountDownLatch(1);
        Thread[] streamThread = new Thread[1];
        try (JfrStream stream = JfrStream.open()) {
            stream.onFlush(() -> {
                if (requested.getCount() == 0) return;
                streamThread[0] = Thread.currentThread();
                report.put("rc.excludedSelf", PrAgent.request(null, 50));
                requested.countDown();
            });
            stream.startAsync();
            if (!requested.await(60, TimeUnit.SECONDS)) throw new IllegalStateException("no flush in 60 s");
            report.put("rc.excludedByValue", PrAgent.request(streamThread[0], 51));
        }
    }

    /** A virtual thread by value (60) and by pointer (61), JDK 21+. */
    static void virtualThread(Report report) throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch running = new CountDownLatch(1);
        Thread virtual = Scenarios.startVirtualThread(null, () -> {
            running.countDown();
            Scenarios.await(release);
        });
        running.await();
        report.put("rc.virtualByValue", PrAgent.request(virtual, 60));
        report.put("rc.virtualByPointer", PrAgent.requestByPointer(virtual, 61));
        release.countDown();
        virtual.join();
    }
}
