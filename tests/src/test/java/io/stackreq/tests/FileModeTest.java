package io.stackreq.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.stackreq.testapp.JvmtiError;
import io.stackreq.testapp.Report;
import io.stackreq.tests.support.Accounting;
import io.stackreq.tests.support.JfrFile;
import io.stackreq.tests.support.JmcFile;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEachJdk;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 2, acceptance 6: {@code file=PATH} with no JFR recording at all (JFR never started in the
 * JVM) writes a valid recording with an event for every accepted request, readable by the JDK's
 * reader and by JMC.
 */
class FileModeTest {
    @OnEachJdk
    void standaloneRecordingHoldsEveryAcceptedRequest(Jdk jdk, @TempDir Path dir) throws Exception {
        Path file = dir.resolve("standalone.jfr");
        Report report = JvmRun.on(jdk, dir).stackreqOptions("file=" + file).runBusyThreads(4, 2);
        assertEquals("false", report.get("jfrInitialized"), () -> "JFR was started in the JVM\n" + report);
        assertEquals(JvmtiError.NONE, report.getInt("enable.rc"), () -> "enable\n" + report);
        assertEquals(report.getLong("issued"), report.rc(JvmtiError.NONE),
                () -> "file= mode needs no recording: every request must return NONE\n" + report);
        long[] accepted = report.getLongs("accepted");
        assertTrue(accepted.length >= 50, () -> "too few requests to judge\n" + report);

        List<RecordedEvent> events = JfrFile.requests(file);
        Accounting.assertEachIdExactlyOnce(accepted, Accounting.userData(events), "jdk.jfr.consumer, file=");
        List<RecordedEvent> walked = new ArrayList<>();
        for (RecordedEvent event : events) {
            assertFalse(event.getBoolean("biased"), () -> JfrFile.describe(event));
            if (!event.getBoolean("failed")) {
                walked.add(event);
            }
        }
        assertTrue(walked.size() >= 0.95 * events.size(), () -> walked.size() + " of " + events.size() + " walked");
        TimerRequestsTest.assertBusyMethodOnTop(walked);
        Accounting.assertExactAccounting(JfrFile.lastStatistics(file), report, events.size());

        List<Long> jmcUserData = new ArrayList<>();
        JmcFile.requests(JmcFile.load(file)).forEach(r -> jmcUserData.add(r.userData()));
        Accounting.assertEachIdExactlyOnce(accepted, jmcUserData, "JMC, file=");
    }

    /**
     * With {@code stats=10ms} the file= recording is written as a chunk every 10 ms while the
     * timers fire: a request captured just before a chunk is cut must land in the next chunk,
     * not be lost between the two.
     */
    @OnEachJdk
    void noRequestIsLostBetweenChunksWrittenEvery10ms(Jdk jdk, @TempDir Path dir) throws Exception {
        Path file = dir.resolve("chunked.jfr");
        Report report = JvmRun.on(jdk, dir).stackreqOptions("file=" + file + ",stats=10ms").runBusyThreads(4, 2);
        assertEquals(report.getLong("issued"), report.rc(JvmtiError.NONE), () -> "requests refused\n" + report);
        long[] accepted = report.getLongs("accepted");
        assertTrue(accepted.length >= 50, () -> "too few requests to judge\n" + report);
        List<RecordedEvent> events = JfrFile.requests(file);
        assertTrue(JfrFile.events(file, JfrFile.STATISTICS).size() >= 20,
                "expected a chunk (with its statistics event) about every 10 ms");
        Accounting.assertEachIdExactlyOnce(accepted, Accounting.userData(events), "file=, stats=10ms");
        Accounting.assertExactAccounting(JfrFile.lastStatistics(file), report, events.size());
    }
}
