package io.stackreq.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import io.stackreq.testapp.Requester;
import io.stackreq.testapp.Scenarios;
import io.stackreq.tests.support.Accounting;
import io.stackreq.tests.support.JfrFile;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.ScenarioRun;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

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

    @ParameterizedTest
    @MethodSource("io.stackreq.tests.support.Jdk#all")
    void wrongPhaseBeforeAnyRecordingAndDuringOnLoad(Jdk jdk) throws Exception {
        ScenarioRun run = ScenarioRun.run(jdk, dir, "wrong-phase", "onload-request");
        assertEquals(Requester.WRONG_PHASE, run.report.getInt("onLoad"), () -> "from Agent_OnLoad\n" + run);
        assertEquals(Requester.NONE, run.report.getInt("enable.rc"), () -> "enable\n" + run);
        assertEquals(Requester.WRONG_PHASE, run.rc("self"), () -> "current thread, no recording yet\n" + run);
        assertEquals(Requester.WRONG_PHASE, run.rc("other"), () -> "other thread, no recording yet\n" + run);
        assertEquals(Requester.NONE, run.rc("afterRecording"), () -> "once a recording runs\n" + run);
        List<RecordedEvent> events = run.requests();
        Accounting.assertEachIdExactlyOnce(new long[] {3}, Accounting.userData(events), "wrong-phase");
        assertStatistic(run, "rejectedWrongPhase", 3);
    }

    /**
     * Issue 12, acceptance 4: a thread JFR excludes (a RecordingStream's dispatch thread) gets
     * WRONG_PHASE for itself, by NULL or by name, and so does a request naming it from another
     * thread; no event, each counted.
     */
    @ParameterizedTest
    @MethodSource("io.stackreq.tests.support.Jdk#all")
    void wrongPhaseForThreadsJfrExcludes(Jdk jdk) throws Exception {
        ScenarioRun run = ScenarioRun.run(jdk, dir, "jfr-excluded", "");
        assertEquals(Requester.WRONG_PHASE, run.rc("streamSelf"), () -> "stream thread, thread NULL\n" + run);
        assertEquals(Requester.WRONG_PHASE, run.rc("streamCurrent"), () -> "stream thread, by name\n" + run);
        assertEquals(Requester.WRONG_PHASE, run.rc("ofStreamThread"), () -> "for the stream thread\n" + run);
        assertEquals(Requester.NONE, run.rc("main"), () -> "main thread\n" + run);
        Accounting.assertEachIdExactlyOnce(new long[] {4}, Accounting.userData(run.requests()), "jfr-excluded");
        assertStatistic(run, "rejectedWrongPhase", 3);
    }

    @ParameterizedTest
    @MethodSource("io.stackreq.tests.support.Jdk#all")
    void notAvailableWhenTheRecordingDoesNotEnableTheEvent(Jdk jdk) throws Exception {
        ScenarioRun run = ScenarioRun.run(jdk, dir, "not-available-event-off", "");
        assertEquals(Requester.NONE, run.report.getInt("enable.rc"), () -> "enable\n" + run);
        assertEquals(Requester.NOT_AVAILABLE, run.rc("self"), () -> "thread NULL\n" + run);
        assertEquals(Requester.NOT_AVAILABLE, run.rc("current"), () -> "thread = current\n" + run);
        assertTrue(run.hasRecording(), () -> "the recording was not written\n" + run);
        assertNoEvents(run);
    }

    @ParameterizedTest
    @MethodSource("io.stackreq.tests.support.Jdk#all")
    void notAvailableWithoutEnableAndAfterTheLastDisable(Jdk jdk) throws Exception {
        ScenarioRun run = ScenarioRun.run(jdk, dir, "not-available-not-enabled", "");
        assertEquals(Requester.NOT_AVAILABLE, run.rc("beforeEnable"), () -> "before Enable\n" + run);
        assertEquals(Requester.NONE, run.report.getInt("enable.rc"), () -> "enable\n" + run);
        assertEquals(Requester.NONE, run.rc("enabled"), () -> "after Enable\n" + run);
        assertEquals(Requester.NONE, run.report.getInt("disable.rc"), () -> "disable\n" + run);
        assertEquals(Requester.NOT_AVAILABLE, run.rc("afterDisable"), () -> "after Disable\n" + run);
        assertEquals(Requester.NOT_AVAILABLE, run.report.getInt("disableAgain.rc"),
                () -> "Disable of an environment that is not enabled\n" + run);
        Accounting.assertEachIdExactlyOnce(new long[] {2}, Accounting.userData(run.requests()), "not-enabled");
        assertStatistic(run, "rejectedNotAvailable", 2);
    }

    @ParameterizedTest
    @MethodSource("io.stackreq.tests.support.Jdk#all")
    void invalidThreadForAnObjectThatIsNotAThread(Jdk jdk) throws Exception {
        ScenarioRun run = ScenarioRun.run(jdk, dir, "invalid-thread", "");
        assertEquals(Requester.INVALID_THREAD, run.rc("string"), () -> "a String as thread\n" + run);
        assertEquals(Requester.INVALID_THREAD, run.rc("object"), () -> "an Object as thread\n" + run);
        assertNoEvents(run);
        assertStatistic(run, "rejectedInvalidThread", 2);
    }

    @ParameterizedTest
    @MethodSource("io.stackreq.tests.support.Jdk#all")
    void threadNotAliveForUnstartedAndTerminatedThreads(Jdk jdk) throws Exception {
        ScenarioRun run = ScenarioRun.run(jdk, dir, "thread-not-alive", "");
        assertEquals(Requester.THREAD_NOT_ALIVE, run.rc("unstarted"), () -> "unstarted thread\n" + run);
        assertEquals(Requester.THREAD_NOT_ALIVE, run.rc("terminated"), () -> "terminated thread\n" + run);
        assertNoEvents(run);
        assertStatistic(run, "rejectedThreadNotAlive", 2);
    }

    /**
     * Another agent's ThreadEnd runs after stackreq's (its JVMTI environment is younger), and so
     * may a signal that its counter sends then: requests from there, by the callback itself and
     * from a signal handler on each of 50 ending threads, get THREAD_NOT_ALIVE, not
     * UNATTACHED_THREAD, and write no event.
     */
    @ParameterizedTest
    @MethodSource("io.stackreq.tests.support.Jdk#all")
    void threadNotAliveAfterTheCallersThreadEnd(Jdk jdk) throws Exception {
        ScenarioRun run = ScenarioRun.run(jdk, dir, "ending-threads", "thread-end-requests");
        long ended = run.report.getLong("ended");
        assertEquals(Scenarios.ENDING_THREADS, ended, () -> "workers\n" + run);
        for (String key : run.report.keys()) {
            if (key.startsWith("threadEnd.")) {
                assertEquals("threadEnd." + Requester.THREAD_NOT_ALIVE, key, () -> "a request at ThreadEnd got "
                        + key + "\n" + run);
            }
        }
        long notAlive = run.report.getLong("threadEnd." + Requester.THREAD_NOT_ALIVE);
        assertTrue(notAlive >= 2 * ended, () -> notAlive + " THREAD_NOT_ALIVE for " + ended + " ended threads\n"
                + run);
        assertNoEvents(run);
        assertStatistic(run, "rejectedThreadNotAlive", notAlive);
    }

    @ParameterizedTest
    @MethodSource("io.stackreq.tests.support.Jdk#all")
    void unsupportedOperationForAVirtualThread(Jdk jdk) throws Exception {
        Assumptions.assumeTrue(jdk.feature() >= 21, "virtual threads exist from JDK 21 on; " + jdk + " has none");
        ScenarioRun run = ScenarioRun.run(jdk, dir, "virtual-thread", "");
        assertEquals("true", run.report.get("isVirtual"), () -> "the target is not virtual\n" + run);
        assertEquals(Requester.UNSUPPORTED_OPERATION, run.rc("virtual"), () -> "virtual thread\n" + run);
        assertNoEvents(run);
        assertStatistic(run, "rejectedUnsupported", 1);
    }

    @ParameterizedTest
    @MethodSource("io.stackreq.tests.support.Jdk#all")
    void noneForTheCurrentThreadPassedAsThread(Jdk jdk) throws Exception {
        ScenarioRun run = ScenarioRun.run(jdk, dir, "none-current-thread", "");
        assertEquals(Requester.NONE, run.rc("current"), () -> "thread = current thread\n" + run);
        List<RecordedEvent> events = run.requests();
        Accounting.assertEachIdExactlyOnce(new long[] {1}, Accounting.userData(events), "none");
        RecordedEvent event = events.get(0);
        assertFalse(event.getBoolean("failed"), () -> JfrFile.describe(event));
        assertTrue(event.getBoolean("biased"), () -> "no ucontext: must be biased; " + JfrFile.describe(event));
        assertEquals("main", JfrFile.threadName(event), () -> JfrFile.describe(event));
        assertTrue(JfrFile.methods(event).contains(Scenarios.class.getName() + ".callerMethod"),
                () -> "stack lacks the calling method: " + JfrFile.describe(event));
    }
}
