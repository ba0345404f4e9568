package io.stackreq.tests;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;

import io.stackreq.testapp.Report;
import io.stackreq.testapp.Requester;
import io.stackreq.testapp.VirtualThreads;
import io.stackreq.tests.support.Accounting;
import io.stackreq.tests.support.JfrFile;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEachJdk;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;
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
    /** Frames of the virtual threads' own code: their task's lambda and virtualWork. */
    static final String APP = VirtualThreads.class.getName();
    static final String ENTRY = "jdk.internal.vm.Continuation.enterSpecial";
    static final String VIRTUAL_RUN = "java.lang.VirtualThread.run";
    /**
     * A signal in the virtual thread's start or end transition (VirtualThread.notifyJvmtiStart,
     * the continuation's run before VirtualThread.run is called or after it returned) finds only
     * these JDK frames above the entry: a whole stack too.
     */
    static boolean inTransition(List<String> methods) {
        return methods.stream().allMatch(m -> m.startsWith("java.lang.VirtualThread.")
                || m.startsWith("java.lang.VirtualThread$") || m.startsWith("jdk.internal.vm.Continuation."));
    }

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

        List<String> wrong = new ArrayList<>();
        long inVirtual = 0;
        long timerInVirtual = 0;
        long failedInVirtual = 0;     // a timer signal during a mount or unmount: no walk, the right thread
        long truncatedInVirtual = 0;  // frames still frozen in the continuation: the walked top frames only
        for (RecordedEvent event : events) {
            boolean explicitRequest = event.getLong("userData") >= VirtualThreads.EXPLICIT_IDS;
            List<String> methods = JfrFile.methods(event);
            RecordedThread thread = event.getThread();
            boolean virtual = thread != null && thread.getBoolean("virtual");
            boolean appCode = methods.stream().anyMatch(m -> m.startsWith(APP) && !m.endsWith(".main"));
            if (!explicitRequest && !appCode && !virtual) {
                continue;  // the carrier's own code
            }
            inVirtual++;
            timerInVirtual += explicitRequest ? 0 : 1;
            boolean failed = event.getBoolean("failed");
            if (!virtual || !(thread.getJavaName().startsWith("vt-") || thread.getJavaName().startsWith("arm-"))) {
                wrong.add("not on its virtual thread: " + JfrFile.describe(event));
            } else if (failed) {
                failedInVirtual++;
                if (explicitRequest) {
                    wrong.add("its own request failed: " + JfrFile.describe(event));
                }
            } else if (methods.stream().anyMatch(m -> m.startsWith("java.util.concurrent.ForkJoin"))) {
                wrong.add("carrier frames: " + JfrFile.describe(event));
            } else if (event.getStackTrace().isTruncated()) {
                truncatedInVirtual++;
                if (methods.contains(ENTRY)) {
                    wrong.add("truncated through its entry: " + JfrFile.describe(event));
                }
            } else if (!ENTRY.equals(methods.get(methods.size() - 1))
                    || !(methods.contains(VIRTUAL_RUN) || inTransition(methods))) {
                wrong.add("not the whole virtual thread stack: " + JfrFile.describe(event));
            } else if (explicitRequest && !(Requester.class.getName() + ".request").equals(methods.get(0))) {
                wrong.add("its own request is not at the call: " + JfrFile.describe(event));
            }
        }
        System.out.println(jdk + " virtual threads: " + events.size() + " events, " + inVirtual
                + " in a virtual thread (" + timerInVirtual + " from timers), " + failedInVirtual + " failed, "
                + truncatedInVirtual + " truncated at frames still frozen");
        long finalTimerInVirtual = timerInVirtual;
        long finalInVirtual = inVirtual;
        assertAll(
                () -> assertTrue(wrong.isEmpty(), () -> wrong.size() + " of " + events.size() + " events wrong, e.g. "
                        + wrong.subList(0, Math.min(3, wrong.size()))),
                () -> assertTrue(finalTimerInVirtual >= 50, () -> "only " + finalTimerInVirtual
                        + " timer requests landed in a virtual thread (of " + finalInVirtual + " in all)"));
    }
}
