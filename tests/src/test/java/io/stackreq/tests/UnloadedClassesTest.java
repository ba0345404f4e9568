package io.stackreq.tests;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.stackreq.testapp.JvmtiError;
import io.stackreq.testapp.Loadable;
import io.stackreq.testapp.Report;
import io.stackreq.testapp.Requester;
import io.stackreq.testapp.UnloadedClasses;
import io.stackreq.tests.support.Accounting;
import io.stackreq.tests.support.JfrFile;
import io.stackreq.tests.support.JfrPrint;
import io.stackreq.tests.support.JmcFile;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEachJdkAndWalker;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 2 (emitter: "survives unloaded classes, frame shown as unknown, no crash"), the
 * deterministic part of acceptance 8: unbiased requests whose stacks hold frames of a class that
 * System.gc() unloads right after, usually before the emitter resolves them. Each such frame is
 * either resolved ({@code Loadable.apply}) or shown as unknown; the stack keeps its shape and
 * every reader reads every event. With both walkers: the VMStructs walk records Method*s, which the
 * emitter resolves only while their jmethodIDs still hold them.
 */
class UnloadedClassesTest {
    static final String UNKNOWN = "<unknown>.<unknown>";

    @TempDir
    Path dir;

    @OnEachJdkAndWalker
    void framesOfUnloadedClassesAreResolvedOrUnknownAndReadable(Jdk jdk, String walker) throws Exception {
        Path recording = dir.resolve("unloaded.jfr");
        int rounds = 40;
        Report report = JvmRun.on(jdk, dir).stackreqOptions("walker=" + walker).recordingTo(recording)
                .runForReport(UnloadedClasses.class, "rounds=" + rounds);
        assertEquals(rounds, report.rc(JvmtiError.NONE), () -> "every request must return NONE\n" + report);
        assertTrue(report.getLong("unloadedClasses") >= rounds / 2, () -> "classes were not unloaded\n" + report);

        List<RecordedEvent> events = JfrFile.requests(recording);
        Accounting.assertEachIdExactlyOnce(report.getLongs("accepted"), Accounting.userData(events), "unloaded");
        String apply = Loadable.class.getName() + ".apply";
        List<String> malformed = new ArrayList<>();
        int unknown = 0;
        for (RecordedEvent event : events) {
            List<String> methods = JfrFile.methods(event);
            int caller = methods.indexOf(UnloadedClasses.class.getName() + ".callThroughThrowAwayLoader");
            // signalSelf, signal, the method reference's lambda, apply(Runnable), apply(Object) bridge
            boolean shaped = !event.getBoolean("failed") && caller == 5
                    && methods.get(0).equals(Requester.class.getName() + ".signalSelf")
                    && methods.get(1).equals(UnloadedClasses.class.getName() + ".signal")
                    && methods.get(2).startsWith(UnloadedClasses.class.getName() + "$$Lambda");
            for (int i = 3; shaped && i < 5; i++) {
                shaped = methods.get(i).equals(apply) || methods.get(i).equals(UNKNOWN);
                unknown += methods.get(i).equals(UNKNOWN) ? 1 : 0;
            }
            if (!shaped) {
                malformed.add(JfrFile.describe(event));
            }
        }
        System.out.printf("%s walker=%s: %d of %d Loadable frames shown as unknown%n", jdk, walker, unknown,
                2 * events.size());
        assertAll(
                () -> assertTrue(malformed.isEmpty(), () -> malformed.size() + " stacks are not signalSelf, signal,"
                        + " lambda, 2 x (Loadable.apply or unknown), callThroughThrowAwayLoader: " + malformed),
                () -> assertEquals(events.size(), JfrPrint.parse(JfrPrint.print(jdk, recording, JfrFile.REQUEST, dir),
                        JfrFile.REQUEST).size(), "events seen by jfr print"),
                () -> assertEquals(events.size(), JmcFile.requests(JmcFile.load(recording)).size(),
                        "events seen by JMC"));
    }
}
