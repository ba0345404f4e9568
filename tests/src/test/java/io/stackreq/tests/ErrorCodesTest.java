package io.stackreq.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import io.stackreq.testapp.JvmtiError;
import io.stackreq.testapp.Scenarios;
import io.stackreq.tests.support.Accounting;
import io.stackreq.tests.support.JfrFile;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.OnEachJdk;
import io.stackreq.tests.support.OnEverySupportedJdk;
import io.stackreq.tests.support.ScenarioRun;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 2, acceptance 3 (error codes): every return code of RequestStackTrace, each provoked by
 * {@link Scenarios} in its own JVM through librequester.so; a rejected request writes no event
 * and is counted under its code in the statistics event.
 */
class ErrorCodesTest {
    @TempDir
    Path dir;

    private static void assertNoEvents(ScenarioRun run) {
        List<RecordedEvent> events = run.requests();
        assertTrue(events.isEmpty(), () -> "rejected requests produced events: "
                + events.stream().map(JfrFile::describe).toList() + "\n" + run);
    }

    private static void assertStatistic(ScenarioRun run, String field, long expected) {
        RecordedEvent statistics = JfrFile.lastStatistics(run.recording);
        assertEquals(expected, statistics.getLong(field), () -> field + " in "
                + JfrFile.describeStatistics(statistics) + "\n" + run);
    }

    /** Each of requests was answered code and wrote no event, and the statistics count them under statistic. */
    private static void assertRejected(ScenarioRun run, int code, String statistic, String... requests) {
        for (String request : requests) {
            assertEquals(code, run.rc(request), () -> "request " + request + "\n" + run);
        }
        assertNoEvents(run);
        assertStatistic(run, statistic, requests.length);
    }

    @OnEverySupportedJdk
    void wrongPhaseBeforeAnyRecordingAndDuringOnLoad(Jdk jdk) throws Exception {
        ScenarioRun run = ScenarioRun.run(jdk, dir, "wrong-phase", "onload-request");
        assertEquals(JvmtiError.WRONG_PHASE, run.report.getInt("onLoad"), () -> "from Agent_OnLoad\n" + run);
        assertEquals(JvmtiError.NONE, run.report.getInt("enable.rc"), () -> "enable\n" + run);
        assertEquals(JvmtiError.WRONG_PHASE, run.rc("self"), () -> "current thread, no recording yet\n" + run);
        assertEquals(JvmtiError.WRONG_PHASE, run.rc("other"), () -> "other thread, no recording yet\n" + run);
        assertEquals(JvmtiError.NONE, run.rc("afterRecording"), () -> "once a recording runs\n" + run);
        List<RecordedEvent> events = run.requests();
        Accounting.assertEachIdExactlyOnce(new long[] {3}, Accounting.userData(events), "wrong-phase");
        assertStatistic(run, "rejectedWrongPhase", 3);
    }

    /**
     * Issue 12, acceptance 4: a thread JFR excludes (a RecordingStream's dispatch thread) gets
     * WRONG_PHASE for itself, by NULL or by name, and so does a request naming it from another
     * thread; no event, each counted.
     */
    @OnEverySupportedJdk
    void wrongPhaseForThreadsJfrExcludes(Jdk jdk) throws Exception {
        Assumptions.assumeTrue(jdk.feature() >= 14, "JFR excludes the threads of its streams, JDK 14 on; " + jdk
                + "'s JFR has no stream and excludes no Java thread");
        ScenarioRun run = ScenarioRun.run(jdk, dir, "jfr-excluded", "");
        assertEquals(JvmtiError.WRONG_PHASE, run.rc("streamSelf"), () -> "stream thread, thread NULL\n" + run);
        assertEquals(JvmtiError.WRONG_PHASE, run.rc("streamCurrent"), () -> "stream thread, by name\n" + run);
        assertEquals(JvmtiError.WRONG_PHASE, run.rc("ofStreamThread"), () -> "for the stream thread\n" + run);
        assertEquals(JvmtiError.NONE, run.rc("main"), () -> "main thread\n" + run);
        Accounting.assertEachIdExactlyOnce(new long[] {4}, Accounting.userData(run.requests()), "jfr-excluded");
        assertStatistic(run, "rejectedWrongPhase", 3);
    }

    /**
     * JFR started in the primordial phase ({@code -XX:FlightRecorderOptions}) binds its natives
     * before JVMTI can name a method: stackreq then binds its stand-ins once JFR has started, as
     * after an attach.
     */
    @OnEachJdk
    void jfrStartedBeforeTheLivePhaseStillGetsWrongPhaseForThreadsItExcludes(Jdk jdk) throws Exception {
        Assumptions.assumeTrue(jdk.feature() >= 14, "JFR excludes the threads of its streams, JDK 14 on");
        ScenarioRun run = ScenarioRun.run(jdk, dir, "jfr-excluded", "",
                "-XX:FlightRecorderOptions:repository=" + dir.resolve("repository"));
        assertEquals(JvmtiError.WRONG_PHASE, run.rc("streamSelf"), () -> "stream thread, thread NULL\n" + run);
        assertEquals(JvmtiError.WRONG_PHASE, run.rc("ofStreamThread"), () -> "for the stream thread\n" + run);
        assertEquals(JvmtiError.NONE, run.rc("main"), () -> "main thread\n" + run);
    }

    @OnEverySupportedJdk
    void notAvailableWhenTheRecordingDoesNotEnableTheEvent(Jdk jdk) throws Exception {
        ScenarioRun run = ScenarioRun.run(jdk, dir, "not-available-event-off", "");
        assertEquals(JvmtiError.NONE, run.report.getInt("enable.rc"), () -> "enable\n" + run);
        assertEquals(JvmtiError.NOT_AVAILABLE, run.rc("self"), () -> "thread NULL\n" + run);
        assertEquals(JvmtiError.NOT_AVAILABLE, run.rc("current"), () -> "thread = current\n" + run);
        assertTrue(run.hasRecording(), () -> "the recording was not written\n" + run);
        assertNoEvents(run);
    }

    /**
     * Issue 27, acceptance 1 and 2: requests need no Enable (the event is the gate, as in PR
     * 31059); InitializeRequestStackTrace returns NONE, twice; Disable closes the disabling
     * environment until it enables again, and a second Disable says NOT_AVAILABLE.
     */
    @OnEverySupportedJdk
    void enableIsOptionalAndDisableClosesTheEnvironmentUntilItEnablesAgain(Jdk jdk) throws Exception {
        ScenarioRun run = ScenarioRun.run(jdk, dir, "enable-disable", "");
        assertEquals(JvmtiError.NONE, run.report.getInt("initialize.rc"), () -> "initialize\n" + run);
        assertEquals(JvmtiError.NONE, run.report.getInt("initializeAgain.rc"), () -> "initialize again\n" + run);
        assertEquals(JvmtiError.NONE, run.rc("beforeEnable"), () -> "before any Enable\n" + run);
        assertEquals(JvmtiError.NONE, run.report.getInt("enable.rc"), () -> "enable\n" + run);
        assertEquals(JvmtiError.NONE, run.rc("enabled"), () -> "after Enable\n" + run);
        assertEquals(JvmtiError.NONE, run.report.getInt("disable.rc"), () -> "disable\n" + run);
        assertEquals(JvmtiError.NOT_AVAILABLE, run.rc("afterDisable"), () -> "after Disable\n" + run);
        assertEquals(JvmtiError.NOT_AVAILABLE, run.report.getInt("disableAgain.rc"),
                () -> "Disable of an environment that is disabled already\n" + run);
        assertEquals(JvmtiError.NONE, run.report.getInt("enableAgain.rc"), () -> "enable again\n" + run);
        assertEquals(JvmtiError.NONE, run.rc("enabledAgain"), () -> "after enabling again\n" + run);
        Accounting.assertEachIdExactlyOnce(new long[] {1, 2, 4}, Accounting.userData(run.requests()),
                "enable-disable");
        assertStatistic(run, "rejectedNotAvailable", 1);
    }

    @OnEverySupportedJdk
    void invalidThreadForAnObjectThatIsNotAThread(Jdk jdk) throws Exception {
        ScenarioRun run = ScenarioRun.run(jdk, dir, "invalid-thread", "");
        assertRejected(run, JvmtiError.INVALID_THREAD, "rejectedInvalidThread", "string", "object");
    }

    @OnEverySupportedJdk
    void threadNotAliveForUnstartedAndTerminatedThreads(Jdk jdk) throws Exception {
        ScenarioRun run = ScenarioRun.run(jdk, dir, "thread-not-alive", "");
        assertRejected(run, JvmtiError.THREAD_NOT_ALIVE, "rejectedThreadNotAlive", "unstarted", "terminated");
    }

    /**
     * Another agent's ThreadEnd runs after stackreq's (its JVMTI environment is younger), and so
     * may a signal that its counter sends then: requests from there, by the callback itself and
     * from a signal handler on each of 50 ending threads, get THREAD_NOT_ALIVE, not
     * UNATTACHED_THREAD, and write no event.
     */
    @OnEverySupportedJdk
    void threadNotAliveAfterTheCallersThreadEnd(Jdk jdk) throws Exception {
        ScenarioRun run = ScenarioRun.run(jdk, dir, "ending-threads", "thread-end-requests");
        long ended = run.report.getLong("ended");
        assertEquals(Scenarios.ENDING_THREADS, ended, () -> "workers\n" + run);
        for (String key : run.report.keys()) {
            if (key.startsWith("threadEnd.")) {
                assertEquals("threadEnd." + JvmtiError.THREAD_NOT_ALIVE, key, () -> "a request at ThreadEnd got "
                        + key + "\n" + run);
            }
        }
        long notAlive = run.report.getLong("threadEnd." + JvmtiError.THREAD_NOT_ALIVE);
        assertEquals(2 * ended, notAlive, () -> notAlive + " THREAD_NOT_ALIVE for " + ended + " ended threads\n"
                + run);
        assertNoEvents(run);
        assertStatistic(run, "rejectedThreadNotAlive", notAlive);
    }

    @OnEverySupportedJdk
    void unsupportedOperationForAVirtualThread(Jdk jdk) throws Exception {
        Assumptions.assumeTrue(jdk.feature() >= 21, "virtual threads exist from JDK 21 on; " + jdk + " has none");
        ScenarioRun run = ScenarioRun.run(jdk, dir, "virtual-thread", "");
        assertEquals("true", run.report.get("isVirtual"), () -> "the target is not virtual\n" + run);
        assertRejected(run, JvmtiError.UNSUPPORTED_OPERATION, "rejectedUnsupported", "virtual");
    }

    @OnEverySupportedJdk
    void noneForTheCurrentThreadPassedAsThread(Jdk jdk) throws Exception {
        ScenarioRun run = ScenarioRun.run(jdk, dir, "none-current-thread", "");
        assertEquals(JvmtiError.NONE, run.rc("current"), () -> "thread = current thread\n" + run);
        // Biased: the request had no ucontext.
        run.onlyEventBiasedOn("main", "callerMethod");
    }
}
