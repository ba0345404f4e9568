package io.stackreq.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.stackreq.reliability.app.BadInputApp;
import io.stackreq.reliability.app.Chaos;
import io.stackreq.reliability.app.FileSinkApp;
import io.stackreq.reliability.support.Reliability;
import io.stackreq.reliability.support.RequestScan;
import io.stackreq.testapp.JvmtiError;
import io.stackreq.testapp.Report;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEachJdk;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 6.4: bad input to the agent gets a JVMTI error code or one line naming the problem, never
 * a crash, a hang or a silently truncated file.
 *
 * <ul>
 * <li>JNI input through libchaos.so ({@link BadInputApp}): NULL env, objects that are not threads,
 * a deleted global reference (a sibling reference keeps its storage block allocated), a weak
 * global reference whose thread was collected (a valid JNI handle), a deleted local reference
 * (HotSpot clears a deleted local handle's slot and does not reuse it before the native
 * returns, so the call sees a handle to null: deterministic). A local reference used after its
 * native frame returned is out of scope: its slot may by then hold any object or a stale
 * pointer into the heap, so no callee can tell it from a valid reference, and -Xcheck:jni is
 * the tool for it.</li>
 * <li>Malformed and unknown options: the JVM stops with one line naming the option.</li>
 * <li>{@code file=} a directory, on a read-only file system, on a full file system (a 64 KiB
 * tmpfs; RLIMIT_FSIZE of 64 KiB where mounting is not allowed): one warning line naming the file
 * and the reason, and the JVM runs on.</li>
 * </ul>
 */
class AgentBadInputTest {
    private static final String SAFE_STEPS = "nullEnv,object,deletedGlobal,weakLive,control";
    private static final Map<Jdk, Run> SAFE_RUNS = new ConcurrentHashMap<>();
    private static final Map<String, JvmRun.Result> SINK_RUNS = new ConcurrentHashMap<>();

    @TempDir
    static Path shared;
    @TempDir
    Path dir;

    static Path readOnlyMount;
    static Path fullMount;

    record Run(JvmRun.Result result, Report report, Path recording) {
    }

    @BeforeAll
    static void mountFileSystems() throws Exception {
        readOnlyMount = mount(shared.resolve("read-only"), "size=64k,ro");
        fullMount = mount(shared.resolve("full"), "size=64k");
    }

    @AfterAll
    static void unmountFileSystems() throws Exception {
        for (Path mount : new Path[] {readOnlyMount, fullMount}) {
            if (mount != null) {
                exec("umount", mount.toString());
            }
        }
    }

    /** A tmpfs at {@code at}, or null when this machine does not let us mount. */
    private static Path mount(Path at, String options) throws Exception {
        Files.createDirectories(at);
        return exec("mount", "-t", "tmpfs", "-o", options, "tmpfs", at.toString()) == 0 ? at : null;
    }

    private static int exec(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getInputStream().readAllBytes();
        return process.waitFor(30, TimeUnit.SECONDS) ? process.exitValue() : -1;
    }

    // ---- JNI input ----

    private static Run badInput(Jdk jdk, Path in, String name, String steps) throws IOException {
        Path recording = in.resolve(name + ".jfr");
        Path report = in.resolve(name + ".txt");
        JvmRun.Result result = JvmRun.on(jdk, in).name(name).withoutRequester()
                .flags("-agentpath:" + Reliability.chaosLibrary().toAbsolutePath()).recordingTo(recording)
                .main(BadInputApp.class, "out=" + report, "steps=" + steps).timeout(Duration.ofSeconds(60)).start();
        if (result.crashed() || result.exitCode() != 0) {
            String outcome = result.crashed() ? "crashed the JVM" : "exit code " + result.exitCode();
            fail("bad input (" + steps + ") " + outcome + "\n" + result);
        }
        return new Run(result, Report.read(report), recording);
    }

    private static Run safeRun(Jdk jdk) {
        return SAFE_RUNS.computeIfAbsent(jdk, j -> {
            try {
                return badInput(j, shared, "bad-input-" + j.feature(), SAFE_STEPS);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static void assertCodes(Run run, int expected, String... keys) {
        Map<String, String> wrong = new TreeMap<>();
        for (String key : keys) {
            if (!run.report.get(key).equals(Integer.toString(expected))) {
                wrong.put(key, run.report.get(key));
            }
        }
        assertTrue(wrong.isEmpty(), () -> "expected " + expected + ", got " + wrong + "\n" + run.report);
    }

    @OnEachJdk
    void nullEnvironmentGetsInvalidEnvironment(Jdk jdk) {
        assertCodes(safeRun(jdk), JvmtiError.INVALID_ENVIRONMENT, "nullEnv.self", "nullEnv.other", "nullEnv.enable",
                "nullEnv.disable");
    }

    @OnEachJdk
    void objectsThatAreNotThreadsGetInvalidThread(Jdk jdk) {
        assertCodes(safeRun(jdk), JvmtiError.INVALID_THREAD, "object.plain", "object.string", "object.class",
                "object.array");
    }

    @OnEachJdk
    void deletedGlobalReferenceGetsInvalidThread(Jdk jdk) {
        assertCodes(safeRun(jdk), JvmtiError.INVALID_THREAD, "deletedGlobal.other");
    }

    /** After all that, valid requests still work, and only they left events; the refusals are counted. */
    @OnEachJdk
    void validRequestsAfterBadOnesHaveTheirEventsAndRefusalsAreCounted(Jdk jdk) {
        Run run = safeRun(jdk);
        assertCodes(run, JvmtiError.NONE, "enable", "weakLive", "control.other", "control.self");
        RequestScan scan = RequestScan.scan(run.recording, 100);
        List<String> problems = new ArrayList<>();
        for (long id = 1; id < 100; id++) {
            int expected = id >= 11 && id <= 13 ? 1 : 0;
            if (scan.events(id) != expected) {
                problems.add("userData " + id + ": " + scan.events(id) + " events, expected " + expected);
            }
        }
        if (scan.outOfRange != 0) {
            problems.add(scan.outOfRange + " events with an unexpected userData");
        }
        if (!"bad-input-target".equals(scan.threadName(11)) || !"bad-input-target".equals(scan.threadName(12))) {
            problems.add("events of the other thread name '" + scan.threadName(11) + "', '"
                    + scan.threadName(12) + "'");
        }
        if (scan.statistic("rejectedInvalidThread") != 5) {
            problems.add("rejectedInvalidThread " + scan.statistic("rejectedInvalidThread") + ", expected 5");
        }
        if (scan.statistic("rejectedOther") != 2) {
            problems.add("rejectedOther " + scan.statistic("rejectedOther") + ", expected 2 (the NULL env requests)");
        }
        if (scan.statistic("accepted") != scan.statistic("emitted") + scan.statistic("dropped")) {
            problems.add("accepted != emitted + dropped");
        }
        assertTrue(problems.isEmpty(), () -> String.join("\n", problems) + "\n" + scan.describeStatistics() + "\n"
                + run.report);
    }

    @OnEachJdk
    void weakReferenceToACollectedThreadGetsInvalidThread(Jdk jdk) throws IOException {
        Run run = badInput(jdk, dir, "weak-cleared", "weakCleared");
        assertTrue(Integer.parseInt(run.report.get("weakCleared.gcs")) >= 0, "the weak reference was never cleared");
        assertCodes(run, JvmtiError.INVALID_THREAD, "weakCleared");
    }

    @OnEachJdk
    void deletedLocalReferenceGetsInvalidThread(Jdk jdk) throws IOException {
        assertCodes(badInput(jdk, dir, "deleted-local", "deletedLocal"), JvmtiError.INVALID_THREAD,
                "deletedLocal.other", "deletedLocal.self");
    }

    // ---- options ----

    static Stream<Arguments> badOptions() {
        String longName = "x".repeat(5000);
        String[][] cases = {
            {"ring=0", "ring=0"}, {"ring=-1", "ring=-1"}, {"ring=99999999999999999999", "ring=99999999999999999999"},
            {"ring=1e3", "ring=1e3"}, {"ring=", "ring="}, {"ring", "ring"}, {"ring=\uff14", "ring="},
            {"depth=0", "depth=0"}, {"depth=4097", "depth=4097"}, {"log=loud", "log=loud"}, {"log=warn:", "log=warn:"},
            {"log=warn:/nonexistent-dir/x.log", "/nonexistent-dir/x.log"}, {"stats=0", "stats=0"},
            {"stats=10h", "stats=10h"}, {"stats=-5s", "stats=-5s"}, {"stats=9223372037s", "stats=9223372037s"},
            {"extensions=maybe", "extensions=maybe"}, {"file=", "file="}, {"latency=", "latency="},
            {"events-jar=", "events-jar="}, {"=x", "unknown option"}, {"ring=4096,ring=lots", "ring=lots"},
            {longName + "=1", longName.substring(0, 100)}, {"bogus", "bogus"},
        };
        return Jdk.all().flatMap(jdk -> Stream.of(cases).map(c -> Arguments.of(jdk, c[0], c[1])));
    }

    @ParameterizedTest(name = "{0} {2}")
    @MethodSource("badOptions")
    void badOptionStopsTheJvmWithOneLineNamingIt(Jdk jdk, String option, String named) {
        assertRefusedWithOneLine(jdk, option, named);
    }

    /** A duration whose nanoseconds overflow int64 is refused, whichever way the product wraps. */
    @OnEachJdk
    void overflowingDurationIsRefused(Jdk jdk) {
        assertRefusedWithOneLine(jdk, "stats=123456789012345m", "stats=123456789012345m");
    }

    private void assertRefusedWithOneLine(Jdk jdk, String option, String named) {
        List<String> command = JvmRun.on(jdk, dir).name("options").withoutRequester().stackreqOptions(option)
                .main(Chaos.class).command();
        // -version: the JVM stops after the agents loaded; a refused option stops it before.
        command.set(command.size() - 1, "-version");
        command.remove(command.size() - 2);
        command.remove(command.size() - 2);
        JvmRun.Result result = JvmRun.command(jdk, dir, command).name("options").timeout(Duration.ofSeconds(60))
                .start();
        List<String> lines = (result.stderr() + "\n" + result.stdout()).lines()
                .filter(line -> line.startsWith("stackreq:") || line.startsWith("[stackreq]")).toList();
        assertTrue(result.exitCode() != 0 && !result.crashed(), () -> "the JVM ran or crashed with " + option + "\n"
                + result);
        assertEquals(1, lines.size(), () -> "one line from stackreq expected\n" + result);
        assertTrue(lines.get(0).contains(named), () -> "the line does not name '" + named + "': " + lines.get(0));
    }

    // ---- file= that cannot be written ----

    static Stream<Arguments> unwritableFiles() {
        return Jdk.all().flatMap(jdk -> Stream.of("directory", "read-only", "full").map(c -> Arguments.of(jdk, c)));
    }

    private JvmRun.Result fileSink(Jdk jdk, String kind) {
        return SINK_RUNS.computeIfAbsent(jdk.feature() + "-" + kind, key -> {
            try {
                Path work = Files.createDirectories(shared.resolve("sink-" + key));
                List<String> wrapper = List.of();
                Path file;
                switch (kind) {
                    case "directory" -> file = Files.createDirectories(work.resolve("a-directory"));
                    case "read-only" -> {
                        org.junit.jupiter.api.Assumptions.assumeTrue(readOnlyMount != null,
                                "mounting a read-only tmpfs is not allowed here");
                        file = readOnlyMount.resolve("recording.jfr");
                    }
                    default -> {
                        if (fullMount != null) {
                            file = fullMount.resolve("recording-" + jdk.feature() + ".jfr");
                        } else {
                            file = work.resolve("recording.jfr");
                            wrapper = List.of("prlimit", "--fsize=65536");
                        }
                    }
                }
                JvmRun.Result result = JvmRun.on(jdk, work).name("sink").withoutRequester()
                        .stackreqOptions("file=" + file)
                        .flags("-agentpath:" + Reliability.chaosLibrary().toAbsolutePath())
                        .main(FileSinkApp.class, "out=" + work.resolve("sink.txt"),
                                // a full 64 KiB file system needs a chunk larger than that
                                "requests=" + (kind.equals("full") ? 12_000 : 2_000), "hz=2000")
                        .timeout(Duration.ofSeconds(60)).wrapper(wrapper).start();
                if (fullMount != null && kind.equals("full")) {
                    Files.deleteIfExists(file);
                }
                return result;
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("unwritableFiles")
    void unwritableFileGetsOneWarningLineAndTheJvmRunsOn(Jdk jdk, String kind) {
        JvmRun.Result result = fileSink(jdk, kind);
        assertTrue(result.exitCode() == 0 && !result.crashed(), () -> "exit code " + result.exitCode() + "\n" + result);
        String reason = switch (kind) {
            case "directory" -> "Is a directory";
            case "read-only" -> "Read-only file system";
            default -> fullMount != null ? "No space left on device" : "File too large";
        };
        List<String> warnings = result.stderr().lines().filter(line -> line.startsWith("[stackreq][warn]")).toList();
        assertEquals(1, warnings.size(), () -> "one warning line expected\n" + result);
        assertTrue(warnings.get(0).contains("file=") || warnings.get(0).contains(".jfr")
                || warnings.get(0).contains("a-directory"), () -> "the warning does not name the file: " + warnings);
        assertTrue(warnings.get(0).contains(reason), () -> "the warning does not say '" + reason + "': " + warnings);
    }

    /**
     * Once the file= recording has stopped, a request accepted can never be written: it must be
     * refused rather than accepted and lost (stackreq.h: NONE means exactly one event).
     */
    @OnEachJdk
    void requestsAfterTheFileRecordingStoppedAreRefused(Jdk jdk) throws IOException {
        JvmRun.Result result = fileSink(jdk, "directory");
        Path work = shared.resolve("sink-" + jdk.feature() + "-directory");
        Report report = Report.read(work.resolve("sink.txt"));
        assertEquals(JvmtiError.NONE, report.getInt("enable2.rc"), () -> "Enable after Disable\n" + report);
        for (String rc : report.get("probe").split(" ")) {
            assertTrue(Integer.parseInt(rc) != JvmtiError.NONE, () -> "a request after the file= recording stopped was "
                    + "accepted (probe " + report.get("probe") + ")\n" + result);
        }
    }
}
