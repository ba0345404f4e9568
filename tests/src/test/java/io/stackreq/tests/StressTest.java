package io.stackreq.tests;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.stackreq.testapp.JvmtiError;
import io.stackreq.testapp.Report;
import io.stackreq.testapp.Stress;
import io.stackreq.tests.support.Accounting;
import io.stackreq.tests.support.JfrFile;
import io.stackreq.tests.support.JfrPrint;
import io.stackreq.tests.support.JmcFile;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEachJdk;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 2, acceptance 8: requests from real timer signals on 8 threads for 10 s while they burn
 * CPU, allocate in a small heap and load classes through throw-away loaders that get unloaded:
 * no crash, every accepted id has exactly one event, the statistics add up exactly, and
 * {@code jfr print} and JMC read every event (frames of unloaded classes included).
 */
class StressTest {
    @OnEachJdk
    void eightSignalledThreadsWithGcAndClassUnloading(Jdk jdk, @TempDir Path dir) throws Exception {
        Path recording = dir.resolve("stress.jfr");
        Report report = JvmRun.on(jdk, dir).timeout(Duration.ofSeconds(120))
                .flags("-Xmx96m").recordingTo(recording).runForReport(Stress.class, "seconds=10");
        assertEquals(JvmtiError.NONE, report.getInt("enable.rc"), () -> "enable\n" + report);
        assertTrue(report.getLong("loaders") >= 10, () -> "class loading did not run\n" + report);
        assertTrue(report.getLong("gcCount") >= 5, () -> "no GC pressure\n" + report);
        assertTrue(report.getLong("unloadedClasses") >= 1, () -> "no class was unloaded\n" + report);
        assertEquals(0, report.getLong("overflow"), () -> "ids overflowed the requester's table\n" + report);
        long[] accepted = report.getLongs("accepted");
        assertTrue(accepted.length >= 1000, () -> "too few requests (" + accepted.length + ")\n" + report);
        assertEquals(report.getLong("issued"), report.rc(JvmtiError.NONE) + report.rc(JvmtiError.OUT_OF_MEMORY),
                () -> "only NONE and OUT_OF_MEMORY expected\n" + report);

        List<RecordedEvent> events = JfrFile.requests(recording);
        assertAll(
                () -> Accounting.assertEachIdExactlyOnce(accepted, Accounting.userData(events), "stress"),
                () -> Accounting.assertExactAccounting(JfrFile.lastStatistics(recording), report, events.size()),
                // Frames of unloaded classes must not break the readers people use.
                () -> assertEquals(events.size(), JfrPrint.parse(JfrPrint.print(jdk, recording, JfrFile.REQUEST, dir),
                        JfrFile.REQUEST).size(), "events seen by jfr print"),
                () -> assertEquals(events.size(), JmcFile.requests(JmcFile.load(recording)).size(),
                        "events seen by JMC"));
    }
}
