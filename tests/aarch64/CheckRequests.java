import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;

import io.stackreq.testapp.Report;
import io.stackreq.testapp.Requester;
import io.stackreq.testapp.Scenarios;
import io.stackreq.tests.support.Accounting;
import io.stackreq.tests.support.JfrFile;
import io.stackreq.tests.support.VirtualThreadEvents;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;

/**
 * tests/aarch64.sh requests' check, run with the host's JDK and the test classes' class path
 * (java -cp CLASSPATH CheckRequests.java DIR [--virtual-threads]): the reports and recordings
 * RequesterScenarios wrote in DIR, against the assertions of BiasedRequestsTest and, with
 * --virtual-threads, of VirtualThreadsTest (the same rules, with the x86_64 tests' helpers
 * Accounting, JfrFile and VirtualThreadEvents). Exits 1 with one line per broken rule; prints the
 * counts either way.
 */
public final class CheckRequests {
    private static final String SCENARIOS = Scenarios.class.getName();
    private static final int MINIMUM_TIMER_REQUESTS_IN_VIRTUAL = 50;
    private static final List<String> broken = new ArrayList<>();

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        checkOnlyBiasedEvent(dir, "jni-null-ucontext", "self", "main", "callerMethod", true);
        checkOnlyBiasedEvent(dir, "other-thread", "other", "target-sleeper", "sleeperMethod", false);
        checkSelfLoop(dir);
        if (args.length > 1 && args[1].equals("--virtual-threads")) checkVirtualThreads(dir);
        for (String rule : broken) System.out.println("BROKEN: " + rule);
        System.exit(broken.isEmpty() ? 0 : 1);
    }

    /** Accounting's assertion (JUnit's, which throws) as one more broken rule. */
    private static boolean eachIdExactlyOnce(long[] ids, List<RecordedEvent> events, String what) {
        try {
            Accounting.assertEachIdExactlyOnce(ids, Accounting.userData(events), what);
            return true;
        } catch (AssertionError failure) {
            broken.add(failure.getMessage());
            return false;
        }
    }

    /**
     * The scenario's one request (its return code reported as rc.KEY) returned NONE, and its one
     * event is walked, biased, on THREAD, with Scenarios.METHOD on its stack, and with
     * Scenarios.main (the requester's stack) when withMain, without it otherwise.
     */
    private static void checkOnlyBiasedEvent(Path dir, String scenario, String key, String thread, String method,
            boolean withMain) throws IOException {
        Report report = Report.read(dir.resolve(scenario + ".txt"));
        List<RecordedEvent> events = JfrFile.requests(dir.resolve(scenario + ".jfr"));
        System.out.println(scenario + ": rc " + report.getInt("rc." + key) + ", " + events.size() + " events"
                + (events.isEmpty() ? "" : ": " + JfrFile.describe(events.get(0))));
        if (report.getInt("rc." + key) != 0) broken.add(scenario + ": its request returned " + report.getInt("rc." + key) + ", not NONE");
        if (!eachIdExactlyOnce(new long[] {1}, events, scenario)) return;
        RecordedEvent event = events.get(0);
        List<String> methods = JfrFile.methods(event);
        if (event.getBoolean("failed") || !event.getBoolean("biased") || !thread.equals(JfrFile.threadName(event))
                || !methods.contains(SCENARIOS + "." + method) || methods.contains(SCENARIOS + ".main") != withMain) {
            broken.add(scenario + ": not a biased stack of " + thread + " with " + method + (withMain ? " and" : " without")
                    + " main: " + JfrFile.describe(event));
        }
    }

    /**
     * Requests for itself without a ucontext, odd ids with thread NULL and even ones with the
     * current thread: each answered NONE and an event, biased, whose stack is the one at the call
     * (the native method on top, then selfLoop at the calling line).
     */
    private static void checkSelfLoop(Path dir) throws IOException {
        Report report = Report.read(dir.resolve("self-loop.txt"));
        List<RecordedEvent> events = JfrFile.requests(dir.resolve("self-loop.jfr"));
        int lineOfNull = report.getInt("line.null"), lineOfCurrent = report.getInt("line.current");
        if (report.getInt("notNone") != 0) broken.add("self-loop: " + report.getInt("notNone") + " requests not answered NONE");
        eachIdExactlyOnce(LongStream.rangeClosed(1, Scenarios.SELF_LOOP_REQUESTS).toArray(), events, "self-loop");
        List<String> wrong = new ArrayList<>();
        for (RecordedEvent event : events) {
            int line = event.getLong("userData") % 2 == 1 ? lineOfNull : lineOfCurrent;
            List<RecordedFrame> frames = event.getStackTrace() == null ? List.of() : event.getStackTrace().getFrames();
            if (event.getBoolean("failed") || !event.getBoolean("biased") || frames.size() < 2
                    || !JfrFile.methodOf(frames.get(0)).equals(Requester.class.getName() + ".request")
                    || !JfrFile.methodOf(frames.get(1)).equals(SCENARIOS + ".selfLoop") || frames.get(1).getLineNumber() != line) {
                wrong.add(JfrFile.describe(event) + (frames.size() < 2 ? "" : " at line " + frames.get(1).getLineNumber()));
            }
        }
        System.out.println("self-loop: " + events.size() + " events, " + wrong.size() + " not biased at the calling line");
        if (!wrong.isEmpty()) {
            broken.add("self-loop: " + wrong.size() + " events not biased with Requester.request on selfLoop's calling line (" + lineOfNull
                    + " with NULL, " + lineOfCurrent + " with the current thread), e.g. " + wrong.subList(0, Math.min(3, wrong.size())));
        }
    }

    /**
     * Every request made in a virtual thread (the carriers' timers, with the signal's ucontext,
     * and each virtual thread's own, without) is an event of that virtual thread whose stack ends
     * at its entry with no carrier frame, or is truncated where frames were still frozen; each
     * accepted id is exactly one event; at least 50 timer requests landed in a virtual thread.
     */
    private static void checkVirtualThreads(Path dir) throws IOException {
        Report report = Report.read(dir.resolve("virtual-threads.txt"));
        List<RecordedEvent> events = JfrFile.requests(dir.resolve("virtual-threads.jfr"));
        if (report.getInt("enable.rc") != 0) broken.add("virtual threads: EnableRequestStackTrace returned " + report.getInt("enable.rc"));
        if (report.getInt("carriersArmed") < 1) broken.add("virtual threads: no carrier got a timer");
        if (report.getInt("explicitNotNone") != 0) broken.add("virtual threads: " + report.getInt("explicitNotNone") + " of their own requests refused");
        long[] accepted = LongStream.concat(LongStream.of(report.getLongs("accepted")), LongStream.of(report.getLongs("explicit"))).toArray();
        eachIdExactlyOnce(accepted, events, "virtual threads");
        VirtualThreadEvents.Tally tally = VirtualThreadEvents.check(events);
        System.out.printf("virtual threads: %d events, %s; %d carriers armed%n", events.size(), tally.summary(),
                report.getInt("carriersArmed"));
        List<String> wrong = tally.wrong();
        long timerInVirtual = tally.timerInVirtual();
        if (!wrong.isEmpty()) broken.add("virtual threads: " + wrong.size() + " of " + events.size() + " events wrong, e.g. " + wrong.subList(0, Math.min(3, wrong.size())));
        if (timerInVirtual < MINIMUM_TIMER_REQUESTS_IN_VIRTUAL) {
            broken.add("virtual threads: only " + timerInVirtual + " timer requests landed in a virtual thread, fewer than "
                    + MINIMUM_TIMER_REQUESTS_IN_VIRTUAL);
        }
    }
}
