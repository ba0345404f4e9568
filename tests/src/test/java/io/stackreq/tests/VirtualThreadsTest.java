package io.stackreq.tests;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.LongStream;

import io.stackreq.testapp.Report;
import io.stackreq.testapp.VirtualThreads;
import io.stackreq.tests.support.Accounting;
import io.stackreq.tests.support.JfrFile;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEachJdk;
import io.stackreq.tests.support.VirtualThreadEvents;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12, acceptance 2: 2,000 virtual threads on two carriers mount and unmount five times
 * each under 1 kHz CPU-timer requests on the carriers (with the signal's ucontext) and one
 * request of their own each (without). Every request made in a virtual thread is an event of
 * that virtual thread ({@code virtual = true}) whose stack ends at the virtual thread's entry,
 * with no carrier frame, or is marked truncated where frames were still frozen in the
 * continuation; accounting is exact.
 */
class VirtualThreadsTest {
    @TempDir
    Path dir;

    @OnEachJdk
    void requestsInVirtualThreadsAreTheirsWithTheirFramesOnly(Jdk jdk) throws Exception {
        Assumptions.assumeTrue(jdk.feature() >= 21, "virtual threads exist from JDK 21 on; " + jdk + " has none");
        Path recording = dir.resolve("rec.jfr");
        Report report = JvmRun.on(jdk, dir).flags("-Djdk.virtualThreadScheduler.parallelism=2")
                .runForReport(VirtualThreads.class, "rec=" + recording);
        assertEquals(0, report.getInt("enable.rc"), "EnableRequestStackTrace");
        assertTrue(report.getInt("carriersArmed") >= 1, () -> "no carrier got a timer\n" + report);
        assertEquals(0, report.getInt("explicitNotNone"), () -> "requests of virtual threads refused\n" + report);
        long[] explicit = report.getLongs("explicit");
        long[] accepted = LongStream.concat(LongStream.of(report.getLongs("accepted")), LongStream.of(explicit))
                .toArray();
        List<RecordedEvent> events = JfrFile.requests(recording);
        Accounting.assertEachIdExactlyOnce(accepted, Accounting.userData(events), "virtual threads");

        VirtualThreadEvents.Tally tally = VirtualThreadEvents.check(events);
        System.out.println(jdk + " virtual threads: " + events.size() + " events, " + tally.summary());
        List<String> wrong = tally.wrong();
        assertAll(
                () -> assertTrue(wrong.isEmpty(), () -> wrong.size() + " of " + events.size() + " events wrong, e.g. "
                        + wrong.subList(0, Math.min(3, wrong.size()))),
                () -> assertTrue(tally.timerInVirtual() >= 50, () -> "only " + tally.timerInVirtual()
                        + " timer requests landed in a virtual thread (of " + tally.inVirtual() + " in all)"));
    }
}
