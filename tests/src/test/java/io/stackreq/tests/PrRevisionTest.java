package io.stackreq.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;

import io.stackreq.testapp.JvmtiError;
import io.stackreq.testapp.PrRevision;
import io.stackreq.testapp.Report;
import io.stackreq.tests.support.Accounting;
import io.stackreq.tests.support.JfrFile;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEverySupportedJdk;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 27, acceptance 1, 3, 4, 5: an agent written to openjdk/jdk pull request 31059's revision
 * (libpr_agent.so: RequestStackTrace alone, the thread by value, never Enable) gets what that
 * revision promises, in one JVM ({@link PrRevision}): WRONG_PHASE before any recording,
 * NOT_AVAILABLE while no running recording enables the event, NONE and one event per request while
 * one does; Recording.enable/disable, a throttle change and a second recording act on the very
 * next request; threads by value (local and global references), by pointer, from JNI and from a
 * ThreadStart callback; THREAD_NOT_ALIVE, INVALID_THREAD, WRONG_PHASE for a thread JFR excludes,
 * UNSUPPORTED_OPERATION for a virtual thread; each event names the requesting library.
 */
class PrRevisionTest {
    @TempDir
    Path dir;

    @OnEverySupportedJdk
    void anAgentWrittenToThePrRevisionGetsWhatItPromises(Jdk jdk) throws Exception {
        Path recording = dir.resolve("pr.jfr");
        Path out = dir.resolve("pr.txt");
        List<String> args = new ArrayList<>(List.of("out=" + out, "rec=" + recording));
        if (jdk.feature() >= 21) args.add("virtual=true");
        JvmRun.Result result = JvmRun.on(jdk, dir).withoutRequester()
                .flags("-agentpath:" + JvmRun.testNativeDir().resolve("libpr_agent.so").toAbsolutePath())
                .main(PrRevision.class, args.toArray(String[]::new)).run();
        assertEquals(0, result.exitCode(), () -> "PrRevision failed\n" + result);
        Report report = Report.read(out);
        String context = "\n" + report + result;

        Map<String, Integer> expected = new HashMap<>();
        expected.put("noRecording", JvmtiError.WRONG_PHASE);
        expected.put("noRecordingSignal", JvmtiError.WRONG_PHASE);
        expected.put("eventOff", JvmtiError.NOT_AVAILABLE);
        expected.put("eventOffSignal", JvmtiError.NOT_AVAILABLE);
        for (String step : List.of("signal", "selfByValue", "selfByPointer", "otherByValue", "otherGlobal",
                "otherByPointer", "callbackByValue", "callbackByPointer", "secondRecording")) {
            expected.put(step, JvmtiError.NONE);
        }
        expected.put("secondStopped", JvmtiError.NOT_AVAILABLE);
        expected.put("unstarted", JvmtiError.THREAD_NOT_ALIVE);
        expected.put("terminated", JvmtiError.THREAD_NOT_ALIVE);
        expected.put("terminatedByPointer", JvmtiError.THREAD_NOT_ALIVE);
        expected.put("unreadable", JvmtiError.INVALID_THREAD);
        expected.put("notAReference", JvmtiError.INVALID_THREAD);
        if (jdk.feature() >= 14) {
            // JFR excludes the threads of its streams, JDK 14 on; JDK 11's excludes no Java thread.
            expected.put("excludedSelf", JvmtiError.WRONG_PHASE);
            expected.put("excludedByValue", JvmtiError.WRONG_PHASE);
        }
        if (jdk.feature() >= 21) {
            expected.put("virtualByValue", JvmtiError.UNSUPPORTED_OPERATION);
            expected.put("virtualByPointer", JvmtiError.UNSUPPORTED_OPERATION);
        }
        expected.forEach((step, code) -> assertEquals(code, report.getInt("rc." + step),
                () -> "step " + step + context));
        assertEquals(PrRevision.LIFECYCLE_ROUNDS, report.getInt("lifecycle.enabledNone"),
                () -> "requests right after Recording.enable must return NONE" + context);
        assertEquals(PrRevision.LIFECYCLE_ROUNDS, report.getInt("lifecycle.disabledNotAvailable"),
                () -> "requests right after Recording.disable must return NOT_AVAILABLE" + context);
        assertEquals(20, report.getInt("throttle.none"), () -> "throttled requests return NONE too" + context);

        List<RecordedEvent> events = JfrFile.requests(recording);
        List<RecordedEvent> throttled = new ArrayList<>();
        List<RecordedEvent> others = new ArrayList<>();
        for (RecordedEvent event : events) {
            long id = event.getLong("userData");
            (id >= 3000 && id < 3010 ? throttled : others).add(event);
            assertEquals("libpr_agent.so", event.getString("requester"),
                    () -> "the requester names the calling library: " + JfrFile.describe(event));
        }
        assertEquals(1, throttled.size(), () -> "10 requests under throttle 1/s made in well under a second: "
                + throttled.stream().map(JfrFile::describe).toList());
        long[] accepted = LongStream.concat(
                LongStream.of(10, 11, 12, 20, 21, 22, 30, 31, 40),
                LongStream.concat(LongStream.range(1000, 1000 + PrRevision.LIFECYCLE_ROUNDS),
                        LongStream.range(3100, 3110))).toArray();
        Accounting.assertEachIdExactlyOnce(accepted, Accounting.userData(others), "PR revision");

        RecordedEvent signal = byId(events, 10);
        assertFalse(signal.getBoolean("biased"), () -> "with the handler's ucontext: " + JfrFile.describe(signal));
        assertFalse(signal.getBoolean("failed"), () -> JfrFile.describe(signal));
        assertTrue(JfrFile.methods(signal).contains(PrRevision.class.getName() + ".main"), () -> JfrFile.describe(signal));
        RecordedEvent self = byId(events, 11);
        assertTrue(self.getBoolean("biased"), () -> JfrFile.describe(self));
        assertTrue(JfrFile.methods(self).contains(PrRevision.class.getName() + ".selfByValue"),
                () -> "the current thread by value is the caller's stack at the call: " + JfrFile.describe(self));
        for (long id : new long[] {20, 21, 22}) {
            RecordedEvent other = byId(events, id);
            assertEquals("pr-target", JfrFile.threadName(other), () -> JfrFile.describe(other));
            assertTrue(other.getBoolean("biased"), () -> JfrFile.describe(other));
            assertTrue(JfrFile.methods(other).contains(PrRevision.class.getName() + ".targetMethod"),
                    () -> "the other thread's stack: " + JfrFile.describe(other));
        }
        for (long id : new long[] {30, 31}) {
            RecordedEvent callback = byId(events, id);
            assertEquals("pr-callback", JfrFile.threadName(callback), () -> JfrFile.describe(callback));
        }
    }

    private static RecordedEvent byId(List<RecordedEvent> events, long id) {
        return events.stream().filter(e -> e.getLong("userData") == id).findFirst()
                .orElseThrow(() -> new AssertionError("no event with userData " + id));
    }
}
