package io.stackreq.tests;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import io.stackreq.testapp.BusyThreads;
import io.stackreq.testapp.NativeChain;
import io.stackreq.testapp.Report;
import io.stackreq.tests.support.Accounting;
import io.stackreq.tests.support.JfrFile;
import io.stackreq.tests.support.JmcFile;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEachJdk;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmc.common.IMCFrame;

/**
 * Issue 13, acceptance 1, 2 and 5: with {@code native=on} an unbiased request's stack starts with
 * the native frames. Two threads spin in a fixed 4-deep C call chain
 * ({@code native_chain_level1} calls level2 ... level4, tests/src/test/native/native_chain.c)
 * under 1 ms CPU-timer signals; the chain is built once with frame pointers and once with
 * {@code -fomit-frame-pointer}, which only the libraries' .eh_frame rows can unwind. Every event
 * whose top frame is in the chain must hold the chain in order from that level down, then the JNI
 * function, then the Java native method {@code NativeChain.spin} and its caller
 * {@code NativeChain.callChain}, the C frames typed {@code Native} and their class the library's
 * file name: read with jdk.jfr.consumer and with JMC core. With {@code native=off} the same
 * workload's stacks have no C frames. Threads copying arrays have the arraycopy stub on top.
 */
public class NativeFramesTest {
    static final String LEVEL = "native_chain_level";
    static final String JNI_FUNCTION = "Java_io_stackreq_testapp_NativeChain_spin";
    static final String SPIN = NativeChain.class.getName() + ".spin";
    static final String CALLER = NativeChain.class.getName() + ".callChain";

    @TempDir
    static Path work;

    private static final Map<String, Run> RUNS = new ConcurrentHashMap<>();

    /** One run of the chain workload: the recording, the ids the requester saw accepted, the events. */
    public record Run(Path recording, long[] accepted, List<RecordedEvent> events) {
        /** The events with a stack (failed = false). */
        List<RecordedEvent> walked() {
            return events.stream().filter(e -> !e.getBoolean("failed")).toList();
        }
    }

    static synchronized Run run(Jdk jdk, String variant, String nativeOption) throws Exception {
        String key = jdk.feature() + "-" + variant + "-" + nativeOption;
        Run run = RUNS.get(key);
        if (run == null) {
            run = recordChain(jdk, work.resolve(key), variant, nativeOption);
            RUNS.put(key, run);
        }
        return run;
    }

    /**
     * Two threads in the chain of {@code libnativechain_<variant>.so} for 2 s under 1 ms CPU-timer
     * requests, with {@code native=<nativeOption>}; every request accepted, each id once.
     */
    public static Run recordChain(Jdk jdk, Path dir, String variant, String nativeOption) throws Exception {
        Path library = JvmRun.testNativeDir().resolve("libnativechain_" + variant + ".so").toAbsolutePath();
        return record(jdk, dir, nativeOption, "chainLibrary=" + library);
    }

    /**
     * Two busy threads (BusyThreads with workload) for 2 s under 1 ms CPU-timer requests: about
     * 1,000 events a run (1,455-1,490 at 3 s), for bounds that are shares of them and at least 100.
     */
    private static Run record(Jdk jdk, Path dir, String nativeOption, String workload) throws Exception {
        Path recording = dir.resolve("rec.jfr");
        Report report = JvmRun.on(jdk, dir).stackreqOptions("native=" + nativeOption)
                .recordingTo(recording)
                .runForReport(BusyThreads.class, "threads=2", "seconds=2", "intervalUs=1000", workload);
        assertEquals(0, report.getInt("enable.rc"), "EnableRequestStackTrace");
        assertEquals(report.getLong("issued"), report.rc(0),
                () -> "every timer request should return JVMTI_ERROR_NONE\n" + report);
        long[] accepted = report.getLongs("accepted");
        assertTrue(accepted.length >= 100, () -> "too few accepted requests to judge: " + accepted.length);
        Run run = new Run(recording, accepted, JfrFile.requests(recording));
        Accounting.assertEachIdExactlyOnce(accepted, Accounting.userData(run.events), workload + " " + jdk);
        return run;
    }

    @OnEachJdk
    void chainBuiltWithFramePointersIsOnTopInOrder(Jdk jdk) throws Exception {
        assertChainInOrder(jdk, "fp");
    }

    @OnEachJdk
    void chainBuiltWithoutFramePointersIsOnTopInOrder(Jdk jdk) throws Exception {
        assertChainInOrder(jdk, "nofp");
    }

    @OnEachJdk
    void withNativeOffTheStacksHaveNoCFrames(Jdk jdk) throws Exception {
        Run run = run(jdk, "nofp", "off");
        List<RecordedEvent> walked = run.walked();
        List<RecordedEvent> withC = walked.stream()
                .filter(e -> JfrFile.methods(e).stream().anyMatch(m -> m.contains(".so."))).toList();
        long spinOnTop = walked.stream().filter(e -> SPIN.equals(JfrFile.topMethod(e))).count();
        System.out.printf("[native=off %s] %d events, %d walked, %d with %s on top%n", jdk, run.events.size(),
                walked.size(), spinOnTop, SPIN);
        assertAll(
                () -> assertTrue(withC.isEmpty(), () -> withC.size() + " stacks with C frames, e.g. "
                        + JfrFile.describe(withC.get(0))),
                () -> assertTrue(spinOnTop >= 0.9 * walked.size(), () -> spinOnTop + " of " + walked.size()
                        + " stacks have " + SPIN + " on top"));
    }

    /**
     * Issue 13, acceptance 5: threads copying arrays spend most of their time in the JVM's
     * arraycopy stub once the loop is compiled; with native=on the stub's frame (named as the JVM
     * names it) is on top, and right below it the Java method that called System.arraycopy.
     * Until the loop is compiled the interpreter calls System.arraycopy as a native method
     * ({@code JVM_ArrayCopy} in libjvm): those samples are left out of the share (a loaded
     * machine can leave the loop interpreted for much of the run: 31 of 177 stacks had the stub
     * on top on JDK 27 with another test class running beside it).
     */
    @OnEachJdk
    void arraycopyStubIsOnTopOfItsJavaCaller(Jdk jdk) throws Exception {
        Run run = record(jdk, work.resolve(jdk.feature() + "-copy"), "on", "copy=true");
        String copier = BusyThreads.class.getName() + ".copyArrays";
        List<RecordedEvent> walked = run.walked();
        List<String> wrong = new ArrayList<>();
        Map<String, Integer> stubs = new TreeMap<>();
        int stubOnTop = 0;
        int compiled = 0;
        for (RecordedEvent event : walked) {
            if (JfrFile.methods(event).contains("libjvm.so.JVM_ArrayCopy")) {
                continue;
            }
            compiled++;
            List<RecordedFrame> frames = event.getStackTrace().getFrames();
            RecordedFrame top = frames.get(0);
            if (!top.getMethod().getType().getName().equals("jvm-stubs")) {
                continue;
            }
            stubOnTop++;
            stubs.merge(top.getMethod().getName(), 1, Integer::sum);
            if (!top.getMethod().getName().contains("arraycopy") || !top.getType().equals("Native")
                    || frames.size() < 2 || !JfrFile.methodOf(frames.get(1)).equals(copier)) {
                wrong.add(JfrFile.describe(event));
            }
        }
        int finalStubOnTop = stubOnTop;
        int finalCompiled = compiled;
        System.out.printf("[native=on copy %s] %d events, %d walked, %d of them not in the interpreter's System.arraycopy, "
                + "%d with a stub on top: %s%n", jdk, run.events.size(), walked.size(), compiled, stubOnTop, stubs);
        assertAll(
                () -> assertTrue(wrong.isEmpty(), () -> wrong.size() + " of " + finalStubOnTop
                        + " stacks with a stub on top are not an arraycopy stub (Native) above " + copier
                        + ", e.g. " + wrong.get(0)),
                () -> assertTrue(finalCompiled >= 50, () -> "only " + finalCompiled + " of " + walked.size()
                        + " stacks are not in the interpreter's System.arraycopy: too few to judge"),
                () -> assertTrue(finalStubOnTop >= 0.25 * finalCompiled, () -> "only " + finalStubOnTop + " of "
                        + finalCompiled + " stacks outside the interpreter's System.arraycopy have the arraycopy stub "
                        + "on top"));
    }

    private static void assertChainInOrder(Jdk jdk, String variant) throws Exception {
        Run run = run(jdk, variant, "on");
        String library = "libnativechain_" + variant + ".so";
        List<RecordedEvent> walked = run.walked();
        List<String> wrong = new ArrayList<>();
        Map<String, Integer> topLevels = new TreeMap<>();
        int inChain = 0;
        for (RecordedEvent event : walked) {
            List<RecordedFrame> frames = event.getStackTrace().getFrames();
            String top = frames.get(0).getMethod().getName();
            if (!top.startsWith(LEVEL)) {
                topLevels.merge(JfrFile.methodOf(frames.get(0)), 1, Integer::sum);
                continue;
            }
            inChain++;
            topLevels.merge(top, 1, Integer::sum);
            List<String> expected = expectedStack(library, top.charAt(top.length() - 1) - '0');
            List<String> actual = new ArrayList<>();
            List<String> types = new ArrayList<>();
            for (int i = 0; i < Math.min(expected.size(), frames.size()); i++) {
                actual.add(JfrFile.methodOf(frames.get(i)));
                types.add(frames.get(i).getType());
            }
            // Every frame down to the Java native method is Native; the caller's type is the JIT's.
            boolean typed = types.subList(0, Math.min(types.size(), expected.size() - 1)).stream()
                    .allMatch("Native"::equals);
            if (!actual.equals(expected) || !typed) {
                wrong.add(actual + " " + types);
            }
        }
        int finalInChain = inChain;
        System.out.printf("[native=on %s %s] %d events, %d walked, %d with the chain on top; top frames: %s%n",
                variant, jdk, run.events.size(), walked.size(), inChain, topLevels);
        List<String> jmcWrong = jmcChainStacks(run.recording, library);
        assertAll(
                () -> assertTrue(wrong.isEmpty(), () -> wrong.size() + " of " + finalInChain
                        + " stacks in the chain are not the chain in order, then the JNI function, " + SPIN + ", "
                        + CALLER + " (all Native to " + SPIN + "), e.g. " + wrong.get(0)),
                () -> assertTrue(finalInChain >= 0.9 * walked.size(), () -> "only " + finalInChain + " of "
                        + walked.size() + " stacks have the chain on top: " + topLevels),
                () -> assertTrue(jmcWrong.isEmpty(), () -> "JMC: " + jmcWrong.size()
                        + " chain stacks read otherwise, e.g. " + jmcWrong.get(0)));
    }

    /** The stack from level down: "library.native_chain_levelN" ... JNI function, spin, its caller. */
    private static List<String> expectedStack(String library, int level) {
        List<String> expected = new ArrayList<>();
        for (int i = level; i >= 1; i--) {
            expected.add(library + "." + LEVEL + i);
        }
        expected.add(library + "." + JNI_FUNCTION);
        expected.add(SPIN);
        expected.add(CALLER);
        return expected;
    }

    /** The same check through JMC core's parser: names, and frame type NATIVE for the C frames. */
    private static List<String> jmcChainStacks(Path recording, String library) {
        List<String> wrong = new ArrayList<>();
        for (JmcFile.Request request : JmcFile.requests(JmcFile.load(recording))) {
            if (request.failed() || request.stackTrace() == null) {
                continue;
            }
            List<? extends IMCFrame> frames = request.stackTrace().getFrames();
            String top = frames.get(0).getMethod().getMethodName();
            if (!top.startsWith(LEVEL)) {
                continue;
            }
            List<String> expected = expectedStack(library, top.charAt(top.length() - 1) - '0');
            List<String> actual = new ArrayList<>();
            boolean nativeTyped = true;
            for (int i = 0; i < Math.min(expected.size(), frames.size()); i++) {
                IMCFrame frame = frames.get(i);
                actual.add(frame.getMethod().getType().getFullName() + "." + frame.getMethod().getMethodName());
                nativeTyped &= i >= expected.size() - 2 || frame.getType() == IMCFrame.Type.NATIVE;
            }
            if (!actual.equals(expected) || !nativeTyped) {
                wrong.add(actual + " nativeTyped=" + nativeTyped);
            }
        }
        return wrong;
    }
}
