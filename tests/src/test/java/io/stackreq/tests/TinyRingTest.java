package io.stackreq.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
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
 * Issue 2, acceptance 5: with a two-slot ring ({@code ring=2}) 4 threads of 1 ms timer requests
 * overflow it; dropped requests return OUT_OF_MEMORY, and the last statistics event satisfies
 * accepted = emitted + dropped with nothing pending.
 */
class TinyRingTest {
    @OnEachJdk
    void dropsAreCountedAndAccountingIsExact(Jdk jdk, @TempDir Path dir) throws Exception {
        Path recording = dir.resolve("rec.jfr");
        Report report = JvmRun.on(jdk, dir).stackreqOptions("ring=2").recordingTo(recording).runBusyThreads(4, 2);
        assertTrue(report.rc(JvmtiError.OUT_OF_MEMORY) > 0, () -> "no request was dropped\n" + report);
        assertEquals(report.getLong("issued"), report.rc(JvmtiError.NONE) + report.rc(JvmtiError.OUT_OF_MEMORY),
                () -> "only NONE and OUT_OF_MEMORY expected\n" + report);

        List<RecordedEvent> events = JfrFile.requests(recording);
        Accounting.assertEachIdExactlyOnce(report.getLongs("accepted"), Accounting.userData(events),
                "events of requests that returned NONE");
        RecordedEvent statistics = JfrFile.lastStatistics(recording);
        assertTrue(statistics.getLong("dropped") > 0, () -> JfrFile.describeStatistics(statistics));
        Accounting.assertExactAccounting(statistics, report, events.size());
    }
}
