package io.stackreq.tests;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.stackreq.testapp.BusyThreads;
import io.stackreq.testapp.Report;
import io.stackreq.testapp.Requester;
import io.stackreq.tests.support.Accounting;
import io.stackreq.tests.support.BusyThreadStacks;
import io.stackreq.tests.support.JfrFile;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEachJdk;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12, item 5: with {@code walker=vmstructs} a signal in the JVM's arraycopy stub is walked by
 * the VMStructs walk from the stub's compiled caller (vmstructs_walk.h), not left to AsyncGetCallTrace. Four
 * threads copy int arrays with System.arraycopy (BusyThreads copy=true: once compiled, most of
 * their time is in the stub) under 1 ms CPU-timer requests for 3 s. Every accepted id has one
 * event; every stack is {@code BusyThreads.copyArrays} (under the JDK methods it calls: the
 * interpreted arraycopy and nanoTime calls), or the timer's disarming after it (stopTimerOrThrow
 * under what it calls), then its thread's lambda, down to {@code Thread.run} with no frame lost or
 * added; the agent's exit line counts the VMStructs walks that started at a leaf stub's caller, and they
 * are a good part of the walks; no request in the stub was left to
 * AsyncGetCallTrace for want of the stub's caller (log=debug names each request left).
 */
class VmStructsWalkStubTest {
    static final String COPIER = BusyThreads.class.getName() + ".copyArrays";
    static final String STOP_TIMER = Requester.class.getName() + ".stopTimerOrThrow";
    private static final Pattern EXIT_LINE =
            Pattern.compile("walker=vmstructs: (\\d+) VMStructs walks \\((\\d+) from a leaf stub's caller");
    /** The copy loop spends most of its CPU time in the stub (NativeFramesTest: >= 25% of stacks). */
    static final double MIN_FROM_STUB_SHARE = 0.10;

    @TempDir
    Path dir;

    @OnEachJdk
    void signalsInTheArraycopyStubAreWalkedFromItsCaller(Jdk jdk) throws Exception {
        Path recording = dir.resolve("rec.jfr");
        Path log = dir.resolve("stackreq.log");
        Report report = JvmRun.on(jdk, dir).stackreqOptions("walker=vmstructs,log=debug:" + log)
                .recordingTo(recording)
                .runForReport(BusyThreads.class, "threads=4", "seconds=3", "intervalUs=1000", "copy=true");
        assertEquals(0, report.getInt("enable.rc"), "EnableRequestStackTrace");
        assertEquals(report.getLong("issued"), report.rc(0),
                () -> "every timer request should return JVMTI_ERROR_NONE\n" + report);
        long[] accepted = report.getLongs("accepted");
        assertTrue(accepted.length >= 200, () -> "too few accepted requests to judge: " + accepted.length);
        List<RecordedEvent> events = JfrFile.requests(recording);
        Accounting.assertEachIdExactlyOnce(accepted, Accounting.userData(events), "copy " + jdk);

        List<String> wrong = new ArrayList<>();
        int walked = 0;
        for (RecordedEvent event : events) {
            if (event.getBoolean("failed")) {
                continue;
            }
            walked++;
            List<String> methods = JfrFile.methods(event);
            int top = 0;
            while (top < methods.size() && methods.get(top).startsWith("java.lang.System.")) {
                top++;
            }
            // A tick that fires while the thread disarms its timer, after the copying, is taken
            // in the lambda's call to stopTimerOrThrow instead, under whatever that calls.
            int stopping = methods.indexOf(STOP_TIMER);
            if (top == 0 && stopping >= 0) {
                top = stopping;
            }
            boolean whole = methods.size() >= top + 3
                    && (methods.get(top).equals(COPIER) || methods.get(top).equals(STOP_TIMER))
                    && methods.get(top + 1).startsWith(BusyThreadStacks.LAMBDA_PREFIX)
                    && methods.get(methods.size() - 1).equals("java.lang.Thread.run");
            if (!whole) {
                wrong.add(methods.toString());
            }
        }
        String agentLog = Files.readString(log, StandardCharsets.UTF_8);
        Matcher exit = EXIT_LINE.matcher(agentLog);
        assertTrue(exit.find(), () -> "no walker=vmstructs exit line in the agent's log:\n" + agentLog);
        long ownWalks = Long.parseLong(exit.group(1));
        long fromStub = Long.parseLong(exit.group(2));
        Map<String, Integer> left = new TreeMap<>();
        Matcher walkLine = Pattern.compile("walk: user_data=-?\\d+ walker=(\\w+) outcome=([\\w-]+)").matcher(agentLog);
        while (walkLine.find()) {
            left.merge(walkLine.group(1) + " " + walkLine.group(2), 1, Integer::sum);
        }
        int finalWalked = walked;
        System.out.printf("[walker=vmstructs copy %s] %d events, %d walked, %d VMStructs walks, %d from the stub's caller; "
                + "left or failed: %s%n", jdk, events.size(), walked, ownWalks, fromStub, left);
        assertAll(
                () -> assertTrue(wrong.isEmpty(), () -> wrong.size() + " of " + finalWalked + " stacks are not "
                        + COPIER + ", its lambda, ..., Thread.run, e.g. " + wrong.get(0)),
                () -> assertTrue(fromStub >= MIN_FROM_STUB_SHARE * finalWalked, () -> "only " + fromStub + " of "
                        + finalWalked + " walked stacks were walked from the arraycopy stub's caller; left: " + left),
                () -> assertEquals(0, left.getOrDefault("asgct stub-caller-unknown", 0),
                        () -> "requests in a stub left to AsyncGetCallTrace: " + left));
    }
}
