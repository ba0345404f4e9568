package io.stackreq.tests;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.stackreq.testapp.BusyThreads;
import io.stackreq.testapp.Report;
import io.stackreq.tests.support.Accounting;
import io.stackreq.tests.support.JfrFile;
import io.stackreq.tests.support.JfrPrint;
import io.stackreq.tests.support.JmcFile;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEachJdk;
import io.stackreq.tests.support.OnEverySupportedJdk;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmc.common.item.IItemCollection;
import org.openjdk.jmc.flightrecorder.stacktrace.tree.Node;

/**
 * Issue 2, acceptance 1 and 2: a third-party agent (librequester.so, GetExtensionFunctions only)
 * requests from 1 ms CPU-timer signals on 4 busy threads, with
 * {@code -XX:StartFlightRecording=filename=rec.jfr,+jdk.StackTraceRequest#enabled=true}. One JVM
 * run per JDK, read by three readers: {@code jdk.jfr.consumer}, {@code jfr print}, JMC core.
 */
class TimerRequestsTest {
    static final String BURN = BusyThreads.class.getName() + ".burn";

    @TempDir
    static Path work;

    private static final Map<Jdk, Run> RUNS = new ConcurrentHashMap<>();

    static final class Run {
        final Path recording;
        final Report report;
        final Path dir;
        final long[] accepted;
        final Map<Long, Integer> tidOfId = new HashMap<>();
        final Map<Integer, String> threadOfTid = new HashMap<>();

        Run(Path recording, Report report, Path dir) {
            this.recording = recording;
            this.report = report;
            this.dir = dir;
            this.accepted = report.getLongs("accepted");
            long[] tids = report.getLongs("acceptedTids");
            for (int i = 0; i < accepted.length; i++) {
                tidOfId.put(accepted[i], (int) tids[i]);
            }
            for (String key : report.keys()) {
                if (key.startsWith("tid.")) {
                    threadOfTid.put(report.getInt(key), key.substring(4));
                }
            }
        }
    }

    static synchronized Run run(Jdk jdk) throws Exception {
        Run run = RUNS.get(jdk);
        if (run == null) {
            Path dir = work.resolve("jdk" + jdk.feature());
            Path recording = dir.resolve("rec.jfr");
            Report report = JvmRun.on(jdk, dir).recordingTo(recording).runBusyThreads(4, 3, "intervalUs=1000");
            run = new Run(recording, report, dir);
            RUNS.put(jdk, run);
        }
        return run;
    }

    static void assertRequestsAllAccepted(Run run) {
        Report report = run.report;
        assertEquals(0, report.getInt("enable.rc"), "EnableRequestStackTrace");
        assertTrue(run.accepted.length >= 100,
                () -> "too few accepted timer requests to judge (" + run.accepted.length + ")\n" + report);
        assertEquals(report.getLong("issued"), report.rc(0),
                () -> "every timer request should return JVMTI_ERROR_NONE\n" + report);
    }

    @OnEverySupportedJdk
    void jdkReaderSeesEveryAcceptedIdOnceWithUnbiasedBusyStacks(Jdk jdk) throws Exception {
        Run run = run(jdk);
        assertRequestsAllAccepted(run);
        List<RecordedEvent> events = JfrFile.requests(run.recording);
        List<RecordedEvent> walked = new ArrayList<>();
        List<String> wrongThread = new ArrayList<>();
        long biased = 0;
        for (RecordedEvent event : events) {
            biased += event.getBoolean("biased") ? 1 : 0;
            RecordedThread thread = event.getThread();
            Integer tid = run.tidOfId.get(event.getLong("userData"));
            if (thread == null || tid == null || thread.getOSThreadId() != tid
                    || !run.threadOfTid.get(tid).equals(thread.getJavaName())) {
                wrongThread.add("expected " + run.threadOfTid.get(tid) + "/os " + tid + ": "
                        + JfrFile.describe(event));
            }
            if (!event.getBoolean("failed")) {
                walked.add(event);
            }
        }
        long finalBiased = biased;
        // Reported together: each names a different property of the same recording.
        assertAll(
                () -> Accounting.assertEachIdExactlyOnce(run.accepted, Accounting.userData(events),
                        "jdk.jfr.consumer"),
                () -> assertEquals(0, finalBiased, "events with biased = true"),
                () -> assertTrue(wrongThread.isEmpty(), () -> wrongThread.size()
                        + " events whose eventThread is not the requesting thread, e.g. " + wrongThread.get(0)),
                () -> assertTrue(walked.size() >= 0.95 * events.size(), () -> "only " + walked.size() + " of "
                        + events.size() + " events have a stack trace (failed = false)"),
                () -> assertBusyMethodOnTop(walked));
    }

    /**
     * Issue 12, acceptance 3, and issue 27 (Datadog's wall-clock engine requests this way), from
     * signal handlers: 4 threads request from their CPU-timer handlers without passing the
     * ucontext. Every accepted request is one event with the thread's own stack. stackreq finds
     * the context the kernel saved for the signal by unwinding the handler's frames to the signal
     * trampoline, so the stack is that of the exact moment (biased = false), the busy method on
     * top, as with the ucontext passed; where it cannot, the stack is the thread's at the call or
     * at its next safepoint (biased = true), never frames of the handler or of another thread.
     */
    @OnEachJdk
    void signalHandlersWithoutUcontextGetTheStackOfTheInterruptedMoment(Jdk jdk) throws Exception {
        Path dir = work.resolve("null-ucontext-jdk" + jdk.feature());
        Path recording = dir.resolve("rec.jfr");
        Report report = JvmRun.on(jdk, dir).requesterOptions("null-ucontext").recordingTo(recording)
                .runBusyThreads(4, 2, "intervalUs=1000");
        Run run = new Run(recording, report, dir);
        assertRequestsAllAccepted(run);
        List<RecordedEvent> events = JfrFile.requests(recording);
        Accounting.assertEachIdExactlyOnce(run.accepted, Accounting.userData(events), "null ucontext");
        List<RecordedEvent> unbiased = events.stream().filter(e -> !e.getBoolean("biased")).toList();
        List<RecordedEvent> walked = events.stream().filter(e -> !e.getBoolean("failed")).toList();
        List<RecordedEvent> unbiasedWalked = unbiased.stream().filter(e -> !e.getBoolean("failed")).toList();
        List<RecordedEvent> foreign = walked.stream().filter(e -> JfrFile.methods(e).stream()
                .noneMatch(m -> m.startsWith(BusyThreads.class.getName() + "."))).toList();
        assertAll(
                () -> assertTrue(unbiased.size() >= 0.95 * events.size(), () -> "only " + unbiased.size() + " of "
                        + events.size() + " events were walked from the signal's context (biased = false)"),
                () -> assertTrue(walked.size() >= 0.95 * events.size(), () -> "only " + walked.size() + " of "
                        + events.size() + " events have a stack"),
                () -> assertTrue(foreign.isEmpty(), () -> foreign.size() + " of " + walked.size()
                        + " walked stacks lack the busy thread's code, e.g. " + JfrFile.describe(foreign.get(0))),
                () -> assertBusyMethodOnTop(unbiasedWalked));
    }

    /**
     * Every stack is in the busy thread's code, and at most 1% lack burn() on top (a signal may
     * land between burn() returning and the timer being deleted).
     */
    static void assertBusyMethodOnTop(List<RecordedEvent> walked) {
        List<RecordedEvent> elsewhere = new ArrayList<>();
        List<RecordedEvent> notOnTop = new ArrayList<>();
        for (RecordedEvent event : walked) {
            if (JfrFile.methods(event).stream().noneMatch(m -> m.startsWith(BusyThreads.class.getName() + "."))) {
                elsewhere.add(event);
            }
            if (!BURN.equals(JfrFile.topMethod(event))) {
                notOnTop.add(event);
            }
        }
        assertAll(
                () -> assertTrue(elsewhere.isEmpty(), () -> elsewhere.size() + " of " + walked.size()
                        + " stacks lack any " + BusyThreads.class.getSimpleName() + " frame, e.g. "
                        + JfrFile.describe(elsewhere.get(0))),
                () -> assertTrue(notOnTop.size() <= 0.01 * walked.size(), () -> notOnTop.size() + " of "
                        + walked.size() + " stacks do not have " + BURN + " on top, e.g. "
                        + JfrFile.describe(notOnTop.get(0))));
    }

    @OnEachJdk
    void jfrPrintOfTheSameJdkSeesTheSameEvents(Jdk jdk) throws Exception {
        Run run = run(jdk);
        assertRequestsAllAccepted(run);
        String text = JfrPrint.print(jdk, run.recording, JfrFile.REQUEST, run.dir);
        List<JfrPrint.Printed> events = JfrPrint.parse(text, JfrFile.REQUEST);
        List<Long> userData = new ArrayList<>();
        events.forEach(e -> userData.add(e.userData()));
        Accounting.assertEachIdExactlyOnce(run.accepted, userData, jdk.tool("jfr") + " print");
        int walked = 0;
        int burnOnTop = 0;
        for (JfrPrint.Printed event : events) {
            assertEquals("false", event.fields.get("biased"), () -> "biased: " + event);
            String expectedThread = run.threadOfTid.get(run.tidOfId.get(event.userData()));
            assertEquals(expectedThread, event.threadName, () -> "eventThread: " + event);
            if (!event.flag("failed")) {
                walked++;
                if (!event.stack.isEmpty() && event.stack.get(0).startsWith(BURN + "(")) {
                    burnOnTop++;
                }
            }
        }
        int finalWalked = walked;
        int finalBurn = burnOnTop;
        assertTrue(walked >= 0.95 * events.size(), () -> finalWalked + " of " + events.size() + " not failed");
        assertTrue(burnOnTop >= 0.99 * walked, () -> finalBurn + " of " + finalWalked + " printed stacks have "
                + BURN + " on top; first event: " + events.get(0));
    }

    @OnEachJdk
    void jmcAggregatesTheStacksToTheBusyMethod(Jdk jdk) throws Exception {
        Run run = run(jdk);
        assertRequestsAllAccepted(run);
        IItemCollection all = JmcFile.load(run.recording);
        List<JmcFile.Request> requests = JmcFile.requests(all);
        List<Long> userData = new ArrayList<>();
        requests.forEach(r -> userData.add(r.userData()));
        Accounting.assertEachIdExactlyOnce(run.accepted, userData, "JMC JfrLoaderToolkit");
        long walked = requests.stream().filter(r -> !r.failed()).count();
        assertTrue(requests.stream().filter(r -> !r.failed()).allMatch(r -> r.stackTrace() != null
                && !r.stackTrace().getFrames().isEmpty()), "JMC: an event that did not fail has no frames");
        assertTrue(requests.stream().noneMatch(r -> r.biased()), "JMC: biased timer request");
        assertTrue(requests.stream().allMatch(r -> r.thread() != null
                && r.thread().getThreadName().startsWith("busy-")), "JMC: eventThread is not a busy thread");

        Node root = JmcFile.topFrameTree(JmcFile.requestItems(all));
        Node heaviest = root.getChildren().stream().max(Comparator.comparingDouble(Node::getCumulativeWeight))
                .orElseThrow(() -> new AssertionError("JMC's stack-trace tree is empty"));
        assertEquals(BURN, JmcFile.methodOf(heaviest), "JMC: heaviest top frame");
        assertTrue(heaviest.getCumulativeWeight() >= 0.99 * walked, () -> "JMC: " + BURN + " weight "
                + heaviest.getCumulativeWeight() + " of " + walked + " stacks");
        assertTrue(heaviest.getCumulativeWeight() <= walked, "JMC: more stacks than events");
    }
}
