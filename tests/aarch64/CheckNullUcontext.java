import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * tests/aarch64.sh null-ucontext's checker, run with the host's JDK: the stackreq recording (file=)
 * of BusyThreads whose timer handlers (librequester.so's null-ucontext) request with a NULL
 * ucontext, and BusyThreads' report. The assertions of TimerRequestsTest's
 * signalHandlersWithoutUcontextGetTheStackOfTheInterruptedMoment: every timer request accepted
 * (at least 100), each accepted id's event exactly once, at least 95% of the events walked from
 * the signal's context (biased = false, which needs the signal frame) and 95% with a stack, every
 * stack in BusyThreads' code, and at most 1% of the unbiased stacks without BusyThreads.burn on top.
 *
 * <pre>java CheckNullUcontext.java REQUESTS.jfr REPORT.txt</pre>
 */
public final class CheckNullUcontext {
    private static final String BUSY = "io.stackreq.testapp.BusyThreads";
    private static final String BURN = BUSY + ".burn";

    public static void main(String[] args) throws IOException {
        Map<String, String> report = readReport(Path.of(args[1]));
        List<String> broken = new ArrayList<>();
        String[] acceptedText = report.getOrDefault("accepted", "").trim().split("\\s+");
        List<Long> accepted = new ArrayList<>();
        for (String id : acceptedText) {
            if (!id.isEmpty()) {
                accepted.add(Long.parseLong(id));
            }
        }
        if (!"0".equals(report.get("enable.rc"))) {
            broken.add("EnableRequestStackTrace returned " + report.get("enable.rc"));
        }
        if (!report.getOrDefault("issued", "-").equals(report.getOrDefault("rc.0", "0"))) {
            broken.add("of " + report.get("issued") + " timer requests " + report.getOrDefault("rc.0", "0")
                    + " returned JVMTI_ERROR_NONE");
        }
        if (accepted.size() < 100) {
            broken.add("too few accepted timer requests to judge: " + accepted.size());
        }
        List<RecordedEvent> events = new ArrayList<>();
        for (RecordedEvent event : RecordingFile.readAllEvents(Path.of(args[0]))) {
            if (event.getEventType().getName().equals("jdk.StackTraceRequest")) {
                events.add(event);
            }
        }
        Map<Long, Integer> seen = new TreeMap<>();
        events.forEach(e -> seen.merge(e.getLong("userData"), 1, Integer::sum));
        Map<Long, Integer> expected = new HashMap<>();
        accepted.forEach(id -> expected.merge(id, 1, Integer::sum));
        if (!seen.equals(new TreeMap<>(expected))) {
            long missing = expected.keySet().stream().filter(id -> !seen.containsKey(id)).count();
            long extra = seen.keySet().stream().filter(id -> !expected.containsKey(id)).count();
            long repeated = seen.values().stream().filter(n -> n > 1).count();
            broken.add("accepted ids and events differ: " + missing + " ids without an event, " + extra
                    + " events of no accepted id, " + repeated + " ids with more than one event");
        }
        int unbiased = 0, walked = 0, unbiasedWalked = 0, foreign = 0, burnNotOnTop = 0;
        String foreignExample = null, notOnTopExample = null;
        for (RecordedEvent event : events) {
            boolean isUnbiased = !event.getBoolean("biased");
            boolean isWalked = !event.getBoolean("failed") && event.getStackTrace() != null
                    && !event.getStackTrace().getFrames().isEmpty();
            unbiased += isUnbiased ? 1 : 0;
            if (!isWalked) {
                continue;
            }
            walked++;
            List<String> methods = methods(event);
            if (methods.stream().noneMatch(m -> m.startsWith(BUSY + "."))) {
                foreign++;
                foreignExample = foreignExample != null ? foreignExample : String.join(" <- ", methods);
            }
            if (isUnbiased) {
                unbiasedWalked++;
                if (!BURN.equals(methods.get(0))) {
                    burnNotOnTop++;
                    notOnTopExample = notOnTopExample != null ? notOnTopExample : String.join(" <- ", methods);
                }
            }
        }
        System.out.printf("null-ucontext: %d events for %d accepted requests, %d walked from the signal's context"
                + " (biased = false), %d with a stack, %d unbiased stacks of which %d without %s on top%n",
                events.size(), accepted.size(), unbiased, walked, unbiasedWalked, burnNotOnTop, BURN);
        if (unbiased < 0.95 * events.size()) {
            broken.add("only " + unbiased + " of " + events.size()
                    + " events were walked from the signal's context (biased = false)");
        }
        if (walked < 0.95 * events.size()) {
            broken.add("only " + walked + " of " + events.size() + " events have a stack");
        }
        if (foreign > 0) {
            broken.add(foreign + " of " + walked + " stacks lack BusyThreads' code, e.g. " + foreignExample);
        }
        if (burnNotOnTop > 0.01 * unbiasedWalked) {
            broken.add(burnNotOnTop + " of " + unbiasedWalked + " unbiased stacks do not have " + BURN
                    + " on top, e.g. " + notOnTopExample);
        }
        if (!broken.isEmpty()) {
            broken.forEach(line -> System.err.println("CheckNullUcontext: " + line));
            System.exit(1);
        }
    }

    private static List<String> methods(RecordedEvent event) {
        List<String> methods = new ArrayList<>();
        for (RecordedFrame frame : event.getStackTrace().getFrames()) {
            methods.add(frame.getMethod().getType().getName() + "." + frame.getMethod().getName());
        }
        return methods;
    }

    private static Map<String, String> readReport(Path file) throws IOException {
        Map<String, String> values = new HashMap<>();
        for (String line : Files.readAllLines(file)) {
            int equals = line.indexOf('=');
            if (equals > 0) {
                values.put(line.substring(0, equals), line.substring(equals + 1));
            }
        }
        return values;
    }
}
