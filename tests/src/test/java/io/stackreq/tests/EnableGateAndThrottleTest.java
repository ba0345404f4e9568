package io.stackreq.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.stackreq.testapp.JvmtiError;
import io.stackreq.testapp.Report;
import io.stackreq.tests.support.JfrFile;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEachJdk;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 2, acceptance 4: the event's JFR settings gate the machinery. Without
 * {@code +jdk.StackTraceRequest#enabled=true} timer requests return NOT_AVAILABLE and nothing is
 * written; a recording started in Java with {@code throttle = 100/s} keeps the event rate near
 * 100 per second of the app's own measured run time.
 */
@Tag("alone")
class EnableGateAndThrottleTest {
    @OnEachJdk
    void withoutTheEnabledSettingRequestsAreNotAvailableAndNothingIsWritten(Jdk jdk, @TempDir Path dir)
            throws Exception {
        Path recording = dir.resolve("rec.jfr");
        Report report = JvmRun.on(jdk, dir).flags("-XX:StartFlightRecording=filename=" + recording)
                .runBusyThreads(2, 1.5);
        assertEquals(JvmtiError.NONE, report.getInt("enable.rc"), () -> "enable\n" + report);
        assertTrue(report.getLong("issued") >= 50, () -> "too few timer requests to judge\n" + report);
        assertEquals(report.getLong("issued"), report.rc(JvmtiError.NOT_AVAILABLE),
                () -> "every request must return NOT_AVAILABLE (98)\n" + report);
        assertTrue(JfrFile.events(recording, "jdk.ThreadStart").size() > 0,
                "the JVM's own recording is unreadable or empty");
        List<RecordedEvent> events = JfrFile.requests(recording);
        assertTrue(events.isEmpty(), () -> events.size() + " events written although the event is off, e.g. "
                + JfrFile.describe(events.get(0)));
    }

    @OnEachJdk
    void throttleOf100PerSecondKeepsTheRateNear100PerSecond(Jdk jdk, @TempDir Path dir) throws Exception {
        Path recording = dir.resolve("throttled.jfr");
        Report report = JvmRun.on(jdk, dir).runBusyThreads(4, 3, "recordTo=" + recording, "throttle=100/s");
        double seconds = report.getLong("elapsedNanos") / 1e9;
        double expected = 100 * seconds;
        long offered = report.rc(JvmtiError.NONE);
        assertEquals(report.getLong("issued"), offered, () -> "throttled requests also return NONE\n" + report);
        // A machine too loaded to offer 150 requests/s cannot show throttling either way.
        org.junit.jupiter.api.Assumptions.assumeTrue(offered >= 1.5 * expected, () -> "only " + offered
                + " requests in " + seconds + " s (machine too loaded): too few to show a 100/s throttle\n" + report);

        List<RecordedEvent> events = JfrFile.requests(recording);
        assertTrue(events.size() >= 0.5 * expected && events.size() <= 1.5 * expected, () -> events.size()
                + " events in " + seconds + " s with throttle 100/s (expected about " + Math.round(expected)
                + ", " + offered + " requests)");
        Set<Long> accepted = new HashSet<>();
        for (long id : report.getLongs("accepted")) {
            accepted.add(id);
        }
        Set<Long> seen = new HashSet<>();
        for (RecordedEvent event : events) {
            long userData = event.getLong("userData");
            assertTrue(accepted.contains(userData), () -> "event for an id never accepted: "
                    + JfrFile.describe(event));
            assertTrue(seen.add(userData), () -> "two events for one id: " + JfrFile.describe(event));
        }
        RecordedEvent statistics = JfrFile.lastStatistics(recording);
        assertEquals(offered - events.size(), statistics.getLong("throttled"),
                () -> "throttled = requests without an event; " + JfrFile.describeStatistics(statistics));
    }
}
