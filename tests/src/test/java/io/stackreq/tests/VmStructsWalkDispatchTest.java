package io.stackreq.tests;

import static org.junit.jupiter.api.Assertions.assertAll;
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
import io.stackreq.testapp.DispatchWork;
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
 * Issue 12, item 5: with {@code walker=vmstructs} signals that land in the JVM's dispatch code are
 * walked by the VMStructs walk (vmstructs_walk.h), or fail, but are never walked wrong: during exception
 * dispatch (C2's rethrow stub, the exception blob, the VM's handler lookup, walked from the frame
 * anchor), in vtable and itable stubs (walked from the compiled caller's return address on top)
 * and while the interpreter enters a method. Four threads run {@link DispatchWork} (exceptions
 * thrown four calls deep through frames without a handler, megamorphic interface and virtual
 * calls) under 1 ms CPU-timer requests for 3 s. Every accepted id has one event; every stack that
 * did not fail is {@code DispatchWork.run}, its thread's lambda, down to {@code Thread.run}, with
 * the chain {@code depth1} … above {@code run} in call order and without a gap, and above the
 * deepest of them only JDK frames (and the shapes' methods above {@code depth4}): a frame of an
 * older stack, the wrong stacks the VMStructs walk once made in the rethrow stub, breaks that order.
 * The agent's exit line shows that walks started at the caller of frameless code.
 */
class VmStructsWalkDispatchTest {
    static final String WORK = DispatchWork.class.getName();
    private static final Pattern EXIT_LINE = Pattern.compile("walker=vmstructs: (\\d+) VMStructs walks \\(\\d+ from a leaf "
            + "stub's caller, \\d+ from a leaf call's, (\\d+) from a VM stub's anchor, (\\d+) from frameless code's "
            + "caller, (\\d+) entering an interpreted method\\)");

    @TempDir
    Path dir;

    @OnEachJdk
    void signalsInDispatchCodeAreWalkedRightOrFail(Jdk jdk) throws Exception {
        Path recording = dir.resolve("rec.jfr");
        Path log = dir.resolve("stackreq.log");
        Report report = JvmRun.on(jdk, dir).stackreqOptions("walker=vmstructs,log=debug:" + log)
                .recordingTo(recording)
                .runForReport(BusyThreads.class, "threads=4", "seconds=3", "intervalUs=1000", "dispatch=true");
        long[] accepted = report.getLongs("accepted");
        assertTrue(accepted.length >= 200, () -> "too few accepted requests to judge: " + accepted.length);
        List<RecordedEvent> events = JfrFile.requests(recording);
        Accounting.assertEachIdExactlyOnce(accepted, Accounting.userData(events), "dispatch " + jdk);

        List<String> wrong = new ArrayList<>();
        int walked = 0;
        for (RecordedEvent event : events) {
            if (!event.getBoolean("failed")) {
                walked++;
                List<String> methods = JfrFile.methods(event);
                if (!whole(methods)) {
                    wrong.add(methods.toString());
                }
            }
        }
        String agentLog = Files.readString(log, StandardCharsets.UTF_8);
        Matcher exit = EXIT_LINE.matcher(agentLog);
        assertTrue(exit.find(), () -> "no walker=vmstructs exit line in the agent's log:\n" + agentLog);
        long fromFrameless = Long.parseLong(exit.group(3));
        Map<String, Integer> left = new TreeMap<>();
        Matcher walkLine = Pattern.compile(
                "walk: user_data=-?\\d+ walker=(\\w+) outcome=([\\w-]+) failed=([01])( stopped-in=\\S+)?")
                .matcher(agentLog);
        while (walkLine.find()) {
            left.merge(walkLine.group(1) + " " + walkLine.group(2) + " failed=" + walkLine.group(3)
                    + (walkLine.group(4) == null ? "" : walkLine.group(4)), 1, Integer::sum);
        }
        int finalWalked = walked;
        System.out.printf("[walker=vmstructs dispatch %s] %d events, %d walked, %s VMStructs walks, %s from a VM stub's "
                + "anchor, %d from frameless code's caller, %s entering; left or failed: %s%n", jdk, events.size(),
                walked, exit.group(1), exit.group(2), fromFrameless, exit.group(4), left);
        assertAll(
                () -> assertTrue(wrong.isEmpty(), () -> wrong.size() + " of " + finalWalked + " stacks are not "
                        + WORK + ".run with its chain in order, e.g. " + wrong.get(0)),
                () -> assertTrue(fromFrameless > 0, () -> "no walk started at the caller of a vtable or itable "
                        + "stub; left: " + left));
    }

    /**
     * Whether a stack (top first) is DispatchWork's chain as {@link DispatchWork} describes it, or its
     * thread's lambda before it calls {@code run} or after it returned (no frame of DispatchWork then).
     */
    static boolean whole(List<String> methods) {
        int run = BusyThreadStacks.runFrame(methods, WORK);
        if (run < 0) {
            return run == BusyThreadStacks.OUTSIDE_RUN;
        }
        int depth = 0;
        while (depth + 1 < DispatchWork.CHAIN.length && run - depth - 1 >= 0
                && methods.get(run - depth - 1).equals(WORK + "." + DispatchWork.CHAIN[depth + 1])) {
            depth++;
        }
        int deepest = run - depth;
        for (int i = deepest - 1; i >= 0; i--) {
            String method = methods.get(i);
            boolean shape = method.startsWith(WORK + "$") && i == deepest - 1
                    && depth == DispatchWork.CHAIN.length - 1;
            boolean jdkMethod = method.startsWith("java.") || method.startsWith("jdk.") || method.startsWith("sun.");
            if (!shape && !jdkMethod) {
                return false;
            }
        }
        return true;
    }
}
