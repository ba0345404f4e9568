package io.stackreq.tests;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.stackreq.testapp.JvmtiError;
import io.stackreq.testapp.Report;
import io.stackreq.tests.support.Accounting;
import io.stackreq.tests.support.JfrFile;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEachJdk;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 2, acceptance 1 without JFR in the way: timer requests must stay unbiased and walkable
 * while another agent's signals hit the same threads (here SIGURG every 5 ms with a no-op
 * handler; JFR's own sampler does the same with its suspend signal). When both signals are
 * pending, the kernel enters the other handler first and the timer handler interrupts it at its
 * first instruction: the ucontext then points into that handler, not into Java code. Runs in
 * {@code file=} mode, so no JFR sampler is involved; the thresholds are item 1's.
 */
class OtherSignalsTest {
    @OnEachJdk
    void timerRequestsStayWalkableWhileAnotherSignalHandlerIsEntered(Jdk jdk, @TempDir Path dir) throws Exception {
        Path file = dir.resolve("poked.jfr");
        Report report = JvmRun.on(jdk, dir).stackreqOptions("file=" + file).runBusyThreads(4, 2, "pokeUs=5000");
        assertEquals(0, report.getLong("pokeErrors"), () -> "poke failed\n" + report);
        assertTrue(report.getLong("pokes") >= 100, () -> "too few other signals\n" + report);
        assertEquals(report.getLong("issued"), report.rc(JvmtiError.NONE), () -> "requests refused\n" + report);
        assertTrue(report.getLongs("accepted").length >= 50, () -> "too few requests to judge\n" + report);

        List<RecordedEvent> events = JfrFile.requests(file);
        List<RecordedEvent> walked = new ArrayList<>();
        for (RecordedEvent event : events) {
            if (!event.getBoolean("failed")) {
                walked.add(event);
            }
        }
        assertAll(
                () -> Accounting.assertEachIdExactlyOnce(report.getLongs("accepted"), Accounting.userData(events),
                        "file="),
                () -> assertTrue(walked.size() >= 0.95 * events.size(), () -> "only " + walked.size() + " of "
                        + events.size() + " events have a stack trace (failed = false)"),
                () -> TimerRequestsTest.assertBusyMethodOnTop(walked));
    }
}
