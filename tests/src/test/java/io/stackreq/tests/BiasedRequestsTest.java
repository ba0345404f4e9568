package io.stackreq.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.LongStream;

import io.stackreq.testapp.JvmtiError;
import io.stackreq.testapp.Requester;
import io.stackreq.testapp.Scenarios;
import io.stackreq.tests.support.Accounting;
import io.stackreq.tests.support.JfrFile;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.OnEachJdk;
import io.stackreq.tests.support.ScenarioRun;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 2, acceptance 3 (biased paths): a NULL ucontext from a JNI call, and a request for
 * another live thread, each give one event with biased = true and the right thread's stack.
 */
@Tag("alone")
class BiasedRequestsTest {
    private static final String MAIN = Scenarios.class.getName() + ".main";

    @TempDir
    Path dir;

    /**
     * Runs scenario, whose one request (its result reported as rcKey) must return NONE, and returns that request's
     * event: biased, on thread, with method on the stack.
     */
    private RecordedEvent onlyBiasedEvent(Jdk jdk, String scenario, String rcKey, String thread, String method)
            throws Exception {
        ScenarioRun run = ScenarioRun.run(jdk, dir, scenario, "");
        assertEquals(JvmtiError.NONE, run.rc(rcKey), () -> "request " + rcKey + " of " + scenario + "\n" + run);
        return run.onlyEventBiasedOn(thread, method);
    }

    @OnEachJdk
    void nullUcontextFromJniGivesABiasedStackWithTheCallingMethod(Jdk jdk) throws Exception {
        RecordedEvent event = onlyBiasedEvent(jdk, "jni-null-ucontext", "self", "main", "callerMethod");
        assertTrue(JfrFile.methods(event).contains(MAIN), () -> "stack lacks main: " + JfrFile.describe(event));
    }

    /**
     * Issue 12, acceptance 3: the stack of a self-request without a ucontext is the one at the
     * call. Each request is followed by other code, so a stack taken any later shows it instead.
     */
    @OnEachJdk
    void selfRequestsWithoutUcontextHoldTheCallingLine(Jdk jdk) throws Exception {
        ScenarioRun run = ScenarioRun.run(jdk, dir, "self-loop", "");
        assertEquals(0, run.report.getInt("notNone"), () -> "requests not answered NONE\n" + run);
        List<RecordedEvent> events = run.requests();
        long[] ids = LongStream.rangeClosed(1, Scenarios.SELF_LOOP_REQUESTS).toArray();
        Accounting.assertEachIdExactlyOnce(ids, Accounting.userData(events), "self-loop");
        int lineOfNull = run.report.getInt("line.null"), lineOfCurrent = run.report.getInt("line.current");
        for (RecordedEvent event : events) {
            boolean nullThread = event.getLong("userData") % 2 == 1;
            assertFalse(event.getBoolean("failed"), () -> JfrFile.describe(event));
            assertTrue(event.getBoolean("biased"), () -> JfrFile.describe(event));
            List<RecordedFrame> frames = event.getStackTrace().getFrames();
            assertEquals(Requester.class.getName() + ".request", JfrFile.methodOf(frames.get(0)),
                    () -> "top frame is not the native method: " + JfrFile.describe(event));
            assertEquals(Scenarios.class.getName() + ".selfLoop", JfrFile.methodOf(frames.get(1)),
                    () -> "not the calling method: " + JfrFile.describe(event));
            assertEquals(nullThread ? lineOfNull : lineOfCurrent, frames.get(1).getLineNumber(),
                    () -> "not the calling line: " + JfrFile.describe(event));
        }
    }

    @OnEachJdk
    void anotherLiveThreadGivesThatThreadsBiasedStack(Jdk jdk) throws Exception {
        RecordedEvent event = onlyBiasedEvent(jdk, "other-thread", "other", "target-sleeper", "sleeperMethod");
        assertFalse(JfrFile.methods(event).contains(MAIN),
                () -> "the requester's stack, not the target's: " + JfrFile.describe(event));
    }
}
