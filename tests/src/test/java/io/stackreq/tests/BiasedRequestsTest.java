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
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 2, acceptance 3 (biased paths): a NULL ucontext from a JNI call, and a request for
 * another live thread, each give one event with biased = true and the right thread's stack.
 */
class BiasedRequestsTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @MethodSource("io.stackreq.tests.support.Jdk#all")
    void nullUcontextFromJniGivesABiasedStackWithTheCallingMethod(Jdk jdk) throws Exception {
        ScenarioRun run = ScenarioRun.run(jdk, dir, "jni-null-ucontext", "");
        assertEquals(Requester.NONE, run.rc("self"), () -> "request(NULL thread, NULL ucontext)\n" + run);
        List<RecordedEvent> events = run.requests();
        Accounting.assertEachIdExactlyOnce(new long[] {1}, Accounting.userData(events), "jni-null-ucontext");
        RecordedEvent event = events.get(0);
        assertFalse(event.getBoolean("failed"), () -> JfrFile.describe(event));
        assertTrue(event.getBoolean("biased"), () -> JfrFile.describe(event));
        assertEquals("main", JfrFile.threadName(event), () -> JfrFile.describe(event));
        assertTrue(JfrFile.methods(event).contains(Scenarios.class.getName() + ".callerMethod"),
                () -> "stack lacks the calling Java method: " + JfrFile.describe(event));
        assertTrue(JfrFile.methods(event).contains(Scenarios.class.getName() + ".main"),
                () -> "stack lacks main: " + JfrFile.describe(event));
    }

    @ParameterizedTest
    @MethodSource("io.stackreq.tests.support.Jdk#all")
    void anotherLiveThreadGivesThatThreadsBiasedStack(Jdk jdk) throws Exception {
        ScenarioRun run = ScenarioRun.run(jdk, dir, "other-thread", "");
        assertEquals(Requester.NONE, run.rc("other"), () -> "request(sleeper thread)\n" + run);
        List<RecordedEvent> events = run.requests();
        Accounting.assertEachIdExactlyOnce(new long[] {1}, Accounting.userData(events), "other-thread");
        RecordedEvent event = events.get(0);
        assertFalse(event.getBoolean("failed"), () -> JfrFile.describe(event));
        assertTrue(event.getBoolean("biased"), () -> JfrFile.describe(event));
        assertEquals("target-sleeper", JfrFile.threadName(event), () -> JfrFile.describe(event));
        List<String> methods = JfrFile.methods(event);
        assertTrue(methods.contains(Scenarios.class.getName() + ".sleeperMethod"),
                () -> "stack lacks the target's method: " + JfrFile.describe(event));
        assertFalse(methods.contains(Scenarios.class.getName() + ".main"),
                () -> "the requester's stack, not the target's: " + JfrFile.describe(event));
    }
}
