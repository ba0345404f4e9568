package io.stackreq.tests;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.stackreq.testapp.BusyThreads;
import io.stackreq.testapp.MethodHandleWork;
import io.stackreq.testapp.Report;
import io.stackreq.tests.support.Accounting;
import io.stackreq.tests.support.BusyThreadStacks;
import io.stackreq.tests.support.JfrFile;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEachJdk;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.io.TempDir;

/**
 * The VMStructs walk below methods the interpreter's method handle linkers entered: such a method
 * saves the word of its own return address as its sender's stack pointer
 * ({@link MethodHandleWork}), which the walk once took for a broken frame, cutting the stack
 * there and leaving it to AsyncGetCallTrace, which failed too (JDK 11's oracle, 2026-11-28: 4% of
 * the recursion workload's samples, in StringConcatFactory's bootstrap called through a
 * linker). Four threads run {@link MethodHandleWork} interpreted ({@code -Xint}) under 1 ms
 * CPU-timer requests for 3 s. Every accepted id has one event; every stack that did not fail is
 * {@code MethodHandleWork.run}, its thread's lambda, down to {@code Thread.run}, with the chain
 * above {@code run} in call order, only {@code java.lang.invoke} frames between two of its methods
 * and only JDK frames above the deepest; at most 5% of the stacks fail, and at least 100 reach
 * {@code depth3}, below which two linker-entered methods lie.
 */
class VmStructsWalkMethodHandlesTest {
    static final String WORK = MethodHandleWork.class.getName();

    @TempDir
    Path dir;

    @OnEachJdk
    void stacksBelowMethodHandleCallsAreWhole(Jdk jdk) throws Exception {
        Path recording = dir.resolve("rec.jfr");
        Report report = JvmRun.on(jdk, dir).stackreqOptions("walker=vmstructs").flags("-Xint")
                .recordingTo(recording)
                .runForReport(BusyThreads.class, "threads=4", "seconds=3", "intervalUs=1000", "handles=true");
        long[] accepted = report.getLongs("accepted");
        assertTrue(accepted.length >= 200, () -> "too few accepted requests to judge: " + accepted.length);
        List<RecordedEvent> events = JfrFile.requests(recording);
        Accounting.assertEachIdExactlyOnce(accepted, Accounting.userData(events), "method handles " + jdk);

        List<String> wrong = new ArrayList<>();
        int failed = 0;
        int throughLinkers = 0;
        for (RecordedEvent event : events) {
            if (event.getBoolean("failed")) {
                failed++;
                continue;
            }
            List<String> methods = JfrFile.methods(event);
            if (!whole(methods)) {
                wrong.add(methods.toString());
            } else if (methods.contains(WORK + ".depth3")) {
                throughLinkers++;
            }
        }
        int finalFailed = failed;
        int finalThroughLinkers = throughLinkers;
        System.out.printf("[walker=vmstructs method handles %s] %d events, %d failed, %d through the linkers, %d wrong%n",
                jdk, events.size(), failed, throughLinkers, wrong.size());
        assertAll(
                () -> assertTrue(wrong.isEmpty(), () -> wrong.size() + " of " + (events.size() - finalFailed)
                        + " stacks are not " + WORK + ".run with its chain in order, e.g. " + wrong.get(0)),
                () -> assertTrue(finalFailed * 20 <= events.size(),
                        () -> finalFailed + " of " + events.size() + " stacks failed (more than 5%)"),
                () -> assertTrue(finalThroughLinkers >= 100,
                        () -> "only " + finalThroughLinkers + " stacks reach " + WORK + ".depth3"));
    }

    /**
     * Whether a stack (top first) is MethodHandleWork's chain as {@link MethodHandleWork} describes it,
     * or its thread's lambda before it calls {@code run} or after it returned.
     */
    static boolean whole(List<String> methods) {
        int run = BusyThreadStacks.runFrame(methods, WORK);
        if (run < 0) {
            return run == BusyThreadStacks.OUTSIDE_RUN;
        }
        int reached = 0;
        int deepest = run;
        for (int i = run - 1; i >= 0; i--) {
            String method = methods.get(i);
            if (reached + 1 < MethodHandleWork.CHAIN.length
                    && method.equals(WORK + "." + MethodHandleWork.CHAIN[reached + 1])) {
                for (int between = deepest - 1; between > i; between--) {
                    if (!methods.get(between).startsWith("java.lang.invoke.")) {
                        return false;
                    }
                }
                reached++;
                deepest = i;
            }
        }
        for (int i = deepest - 1; i >= 0; i--) {
            String method = methods.get(i);
            if (!(method.startsWith("java.") || method.startsWith("jdk.") || method.startsWith("sun."))) {
                return false;
            }
        }
        return true;
    }
}
