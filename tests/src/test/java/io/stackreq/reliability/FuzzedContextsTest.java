package io.stackreq.reliability;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import io.stackreq.reliability.app.Chaos;
import io.stackreq.reliability.app.FuzzApp;
import io.stackreq.reliability.support.ChaosResults;
import io.stackreq.reliability.support.Ledger;
import io.stackreq.reliability.support.Reliability;
import io.stackreq.reliability.support.RequestScan;
import io.stackreq.testapp.JvmtiError;
import io.stackreq.testapp.Report;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEachJdk;
import io.stackreq.tests.support.OnEachJdkAndWalker;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 6.1: RequestStackTrace with fuzzed ucontexts. libchaos.so's handler copies the real
 * context of each signal and mutates PC, SP and FP (random, a few bytes off, pages off, zero,
 * misaligned, all ones, kernel half, up to 1 MiB off; 1 in 16 left as it was, a control) before
 * requesting with the copy. Signals land on threads computing, allocating, copying arrays
 * (stubs), sleeping and calling JNI. 50,000 requests per JDK in CI, 1,000,000 with
 * {@code -Dstackreq.long=true}.
 *
 * <p>Must hold: no crash (a crash fails with the top of the hs_err file), every request returns
 * NONE or OUT_OF_MEMORY (the ring was full), every NONE has exactly one event with the requesting
 * thread, the statistics add up exactly, and no request changes errno (with native=on, the
 * stacks of threads JVMTI does not show are read through the kernel, and a garbage register's
 * read fails with EFAULT: about 290 of 50,000 requests changed it before RequestStackTrace kept
 * errno). How many walks fail is printed, not asserted: garbage registers are expected to give
 * failed = true.
 *
 * <p>HotSpot keeps the lowest pages of every Java thread's stack inaccessible (its reserved,
 * yellow and red zones); a fault there while the thread is in Java is taken for a Java stack
 * overflow. The main run keeps mutated SP/FP out of the lowest 64 KiB of the signalled thread's
 * stack; {@link #stackAndFramePointerInTheGuardZone} puts them there.
 */
class FuzzedContextsTest {
    /** The OS name of libchaos.so's native threads. */
    private static final String SPINNER = "chaos-spinner";
    /** The Java name of libchaos.so's native threads attached to the VM. */
    private static final String ATTACHED = "chaos-attached";

    @TempDir
    Path dir;

    @OnEachJdkAndWalker
    void fuzzedContextsNeverCrashAndEveryAcceptedRequestHasItsEvent(Jdk jdk, String walker) throws Exception {
        Fuzzed fuzzed = fuzz(jdk, "guard=avoid", Reliability.fuzzedRequests(), 16, "walker=" + walker);
        fuzzed.assertAccounted();
        assertTrue(fuzzed.controlsWalked() > 0,
                () -> "no unmutated control request was walked: the harness does not deliver real contexts\n"
                        + fuzzed.breakdown);
    }

    /**
     * The same mutated contexts with {@code native=on}: the native unwinder follows PC, SP and FP
     * through the loaded objects' frames (signals also land in JNI code and in the VM), and must
     * read nothing outside the thread's usable stack.
     */
    @OnEachJdk
    void fuzzedContextsWithNativeFramesNeverCrash(Jdk jdk) throws Exception {
        Fuzzed fuzzed = fuzz(jdk, "guard=avoid", Reliability.fuzzedRequests(), 16, "native=on");
        fuzzed.assertAccounted();
        System.out.println("[fuzz " + jdk + "] native=on: " + fuzzed.scan.nativeTopEvents
                + " events with native code on top");
        assertTrue(fuzzed.scan.nativeTopEvents > 0, "no event has native frames: native=on was not exercised");
        assertTrue(fuzzed.controlsWalked() > 0,
                () -> "no unmutated control request was walked: the harness does not deliver real contexts\n"
                        + fuzzed.breakdown);
    }

    /**
     * Issue 13, acceptance 4: the mutated contexts, with {@code native=on}, also on threads JVMTI
     * does not show: the JVM's own (GC workers, the VM thread, the JIT compilers: HotSpot knows
     * their stacks) and two native threads the VM never sees (their stacks are read through the
     * kernel). Every request there is accepted; its event has the requesting OS thread, no Java
     * name and native frames only. Two native threads attached to the VM (Java threads with no Java
     * frame, computing in C) get their native frames as their stacks; with walker=vmstructs the own
     * walk leaves them to AsyncGetCallTrace from their thread state (in native code, no last Java
     * frame) without unwinding their frames first.
     */
    @OnEachJdkAndWalker
    void fuzzedContextsOnThreadsJvmtiDoesNotShowWithNativeFrames(Jdk jdk, String walker) throws Exception {
        Fuzzed fuzzed = fuzz(jdk, "guard=avoid", Reliability.fuzzedRequests(), 16, "native=on,walker=" + walker,
                true);
        fuzzed.assertAccounted(Set.of(JvmtiError.NONE, JvmtiError.OUT_OF_MEMORY));
        Map<String, Long> byName = fuzzed.scan.internalThreadEvents;
        long spinners = byName.getOrDefault(SPINNER, 0L);
        long jvmThreads = byName.entrySet().stream().filter(e -> !e.getKey().equals(SPINNER))
                .mapToLong(Map.Entry::getValue).sum();
        System.out.println("[fuzz " + jdk + "] threads JVMTI does not show: " + byName + "; statistics internalThread="
                + fuzzed.scan.statistic("internalThread") + " kernelRead=" + fuzzed.scan.statistic("kernelRead"));
        assertAll(
                () -> assertTrue(spinners > 0, "no event from the native threads the VM never sees"),
                () -> assertTrue(jvmThreads > 0, "no event from the JVM's own threads"),
                () -> assertEquals(0, fuzzed.scan.internalWithJavaFrames,
                        "events of threads JVMTI does not show with frames that are not Native"),
                () -> assertEquals(spinners + jvmThreads, fuzzed.scan.statistic("internalThread"),
                        "statistic internalThread"),
                () -> assertTrue(fuzzed.scan.statistic("kernelRead") >= spinners,
                        "every request of a native thread HotSpot does not know is read through the kernel"),
                () -> assertTrue(fuzzed.scan.nativeOnlyStacks.getOrDefault(ATTACHED, 0L) > 0,
                        () -> "no native stack for the attached native thread: " + fuzzed.scan.nativeOnlyStacks));
    }

    /**
     * The same threads with {@code native=off}: their requests are refused exactly as before
     * (UNATTACHED_THREAD, counted as rejectedOther) and have no event; the attached native threads'
     * events have no stack, as before.
     */
    @OnEachJdk
    void withNativeOffThreadsJvmtiDoesNotShowAreRefusedAsBefore(Jdk jdk) throws Exception {
        Fuzzed fuzzed = fuzz(jdk, "guard=avoid", 20_000, 16, "native=off", true);
        fuzzed.assertAccounted(Set.of(JvmtiError.NONE, JvmtiError.OUT_OF_MEMORY, JvmtiError.UNATTACHED_THREAD));
        long unattached = fuzzed.chaos.countWithRc(JvmtiError.UNATTACHED_THREAD);
        long withEvent = 0;
        for (long id = 1; id <= fuzzed.chaos.count(); id++) {
            if (fuzzed.chaos.rc(id) == JvmtiError.UNATTACHED_THREAD && fuzzed.scan.events(id) != 0) {
                withEvent++;
            }
        }
        long refusedWithEvent = withEvent;
        assertAll(
                () -> assertTrue(unattached > 0, "no request from a thread JVMTI does not show was refused"),
                () -> assertEquals(0, refusedWithEvent, "refused requests with an event"),
                () -> assertEquals(unattached, fuzzed.scan.statistic("rejectedOther"), "statistic rejectedOther"),
                () -> assertEquals(0, fuzzed.scan.statistic("internalThread"), "statistic internalThread"),
                () -> assertEquals(0, fuzzed.scan.nativeOnlyStacks.getOrDefault(ATTACHED, 0L),
                        "native stacks for the attached native thread with native=off"),
                () -> assertTrue(fuzzed.scan.internalThreadEvents.isEmpty(),
                        () -> "events of threads JVMTI does not show: " + fuzzed.scan.internalThreadEvents));
    }

    /**
     * Every PC from 1 to 1024 bytes past the interrupted one, with SP = 8 (not null, unreadable):
     * within a few signals some PC is the deoptimization handler of the nmethod the thread was in,
     * and HotSpot's frame constructor then reads the original PC at SP + offset before any check
     * (JavaThread::pd_get_top_frame, frame::setup, get_deopt_original_pc; JDK 17 and 25). A real
     * signal context always has SP inside the thread's stack, so the request path can refuse to
     * walk one that has not, and must, because AsyncGetCallTrace does not.
     */
    @OnEachJdkAndWalker
    void pcPastTheInterruptedOneWithAnUnreadableStackPointer(Jdk jdk, String walker) throws Exception {
        fuzz(jdk, "sweep=1024", 30_000, 1024, "walker=" + walker).assertAccounted();
    }

    /**
     * SP and FP at random aligned addresses in the lowest 16 KiB of the signalled thread's stack,
     * which HotSpot keeps PROT_NONE. The request path must not read there (it is not "within the
     * thread's own stack mapping" in the sense of readable).
     */
    @OnEachJdkAndWalker
    void stackAndFramePointerInTheGuardZone(Jdk jdk, String walker) throws Exception {
        fuzz(jdk, "guard=only", 5_000, 16, "walker=" + walker).assertAccounted();
    }

    /** The guard-zone contexts with {@code native=on}: the native unwinder must not read there either. */
    @OnEachJdk
    void stackAndFramePointerInTheGuardZoneWithNativeFrames(Jdk jdk) throws Exception {
        fuzz(jdk, "guard=only", 5_000, 16, "native=on").assertAccounted();
    }

    /** One fuzz run: what the agent saw, what the recording holds. */
    private final class Fuzzed {
        final Jdk jdk;
        final ChaosResults chaos;
        final RequestScan scan;
        final String breakdown;

        Fuzzed(Jdk jdk, ChaosResults chaos, RequestScan scan) {
            this.jdk = jdk;
            this.chaos = chaos;
            this.scan = scan;
            this.breakdown = breakdown(chaos, scan);
        }

        void assertAccounted() {
            assertAccounted(Set.of(JvmtiError.NONE, JvmtiError.OUT_OF_MEMORY));
        }

        void assertAccounted(Set<Integer> expectedCodes) {
            List<String> problems = new ArrayList<>();
            for (Map.Entry<Integer, Long> code : chaos.rcHistogram().entrySet()) {
                if (!expectedCodes.contains(code.getKey())) {
                    problems.add(code.getValue() + " requests returned " + code.getKey() + " (only " + expectedCodes
                            + " expected)");
                }
            }
            problems.addAll(Ledger.eachAcceptedIdExactlyOnce(chaos, scan));
            problems.addAll(Ledger.eventThreadIsTheRequester(chaos, scan));
            problems.addAll(Ledger.statisticsExact(chaos, scan, true));
            problems.addAll(Ledger.errnoKept(chaos));
            System.out.println("[fuzz " + jdk + "] " + chaos + "\n" + breakdown);
            if (!problems.isEmpty()) {
                fail(String.join("\n", problems) + "\n" + chaos + "\n" + breakdown);
            }
        }

        long controlsWalked() {
            long walked = 0;
            for (long id = 1; id <= chaos.count(); id++) {
                if (chaos.fuzzed(id) && (chaos.mutation(id) & 0xfff) == 0 && scan.events(id) == 1 && !scan.failed(id)) {
                    walked++;
                }
            }
            return walked;
        }
    }

    private Fuzzed fuzz(Jdk jdk, String chaosOptions, long requests, int perSignal) throws Exception {
        return fuzz(jdk, chaosOptions, requests, perSignal, "native=off");
    }

    /** agentOptions: the agent's options beside ring=, e.g. native= or walker=. */
    private Fuzzed fuzz(Jdk jdk, String chaosOptions, long requests, int perSignal, String agentOptions)
            throws Exception {
        return fuzz(jdk, chaosOptions, requests, perSignal, agentOptions, false);
    }

    /** internal: the requests also come from the JVM's own threads and from native threads. */
    private Fuzzed fuzz(Jdk jdk, String chaosOptions, long requests, int perSignal, String agentOptions,
            boolean internal) throws Exception {
        Path recording = dir.resolve("fuzz.jfr");
        Path reportFile = dir.resolve("fuzz.txt");
        Path results = dir.resolve("fuzz-results");
        int capacity = (int) (requests + 200_000);
        JvmRun.Result run = JvmRun.on(jdk, dir).name("fuzz").withoutRequester()
                .stackreqOptions("ring=65536," + agentOptions)
                .flags("-agentpath:" + Reliability.chaosLibrary().toAbsolutePath() + "=ids=" + capacity + ","
                        + chaosOptions, "-Xmx256m", "-XX:StartFlightRecording=filename=" + recording
                                + "," + JvmRun.enableEvent(jdk))
                .main(FuzzApp.class, "out=" + reportFile, "results=" + results, "requests=" + requests,
                        "perSignal=" + perSignal, "hz=" + Math.max(1, 32_000 / perSignal), "internal=" + internal)
                .timeout(Duration.ofSeconds(120 + requests / 1000)).start();
        if (run.crashed() || run.exitCode() != 0) {
            fail("fuzzed requests (" + chaosOptions + ") " + (run.crashed() ? "crashed the JVM"
                    : "ended the JVM with exit code " + run.exitCode()) + "\n" + run);
        }
        Report report = Report.read(reportFile);
        assertEquals(JvmtiError.NONE, report.getInt("enable.rc"), () -> "enable\n" + report);
        ChaosResults chaos = ChaosResults.read(results);
        assertTrue(chaos.count() >= requests, () -> "fewer requests than asked: " + chaos);
        return new Fuzzed(jdk, chaos, RequestScan.scan(recording, chaos.count() + 1));
    }

    /** Events and failed walks per mutated register kind, e.g. "pc=random: 5512 events, 100.0% failed". */
    private static String breakdown(ChaosResults chaos, RequestScan scan) {
        Map<String, long[]> byKind = new TreeMap<>();
        for (long id = 1; id <= chaos.count(); id++) {
            if (!chaos.fuzzed(id) || scan.events(id) != 1) {
                continue;
            }
            int m = chaos.mutation(id);
            String[] registers = {"pc", "sp", "fp"};
            boolean control = (m & 0xfff) == 0;
            for (int r = 0; r < 3; r++) {
                int kind = (m >> (4 * r)) & 15;
                if (kind == 0 && !control) {
                    continue;
                }
                String key = control ? "control (unmutated)" : registers[r] + "=" + Chaos.MUTATIONS[kind];
                long[] counts = byKind.computeIfAbsent(key, k -> new long[2]);
                counts[0]++;
                counts[1] += scan.failed(id) ? 1 : 0;
                if (control) {
                    break;
                }
            }
        }
        StringBuilder text = new StringBuilder("events by mutation (a request counts once per mutated register):\n");
        byKind.forEach((key, counts) -> text.append(String.format("  %-22s %8d events, %5.1f%% failed%n", key,
                counts[0], 100.0 * counts[1] / Math.max(1, counts[0]))));
        text.append(String.format("  all: %d events, %d failed%n", scan.requestEvents, scan.failedEvents));
        return text.toString();
    }
}
