package io.stackreq.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.stackreq.reliability.app.ShutdownApp;
import io.stackreq.reliability.support.ChaosResults;
import io.stackreq.reliability.support.Ledger;
import io.stackreq.reliability.support.Reliability;
import io.stackreq.reliability.support.RequestScan;
import io.stackreq.testapp.JvmtiError;
import io.stackreq.testapp.Report;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEachJdk;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 6.3: the JVM ends, or the last environment disables, while signal-driven requests are in
 * flight (4 pacers x 1 kHz of a real-time signal on three workers, {@link ShutdownApp}).
 *
 * <p>Must hold: the JVM exits with the expected code, without a crash, within a minute (else its
 * threads are dumped); every request accepted is in the file exactly once, with its thread, and
 * the statistics add up; requests after the recording stopped are refused (NOT_AVAILABLE), after
 * VMDeath (libchaos.so's VMDeath callback runs after libstackreq's and requests, from normal code
 * and from a signal handler, while the pacers keep firing until the process is gone) with
 * WRONG_PHASE; requests after DisableRequestStackTrace returned get NOT_AVAILABLE, and everything
 * accepted before it returned is already in the file= recording when it returns.
 */
class ShutdownTest {
    private static final int DEATH_REQUESTS = 20;

    @TempDir
    Path dir;

    @OnEachJdk
    void systemExitWhileRequestsAreInFlightWithAJfrRecording(Jdk jdk) throws Exception {
        Path recording = dir.resolve("exit.jfr");
        JvmRun.Result run = endOfJvm(jdk, "exit", "", "-XX:StartFlightRecording=filename=" + recording
                + "," + JvmRun.enableEvent(jdk));
        assertEndedCleanly(run, recording, Set.of(JvmtiError.NONE, JvmtiError.OUT_OF_MEMORY, JvmtiError.NOT_AVAILABLE,
                JvmtiError.WRONG_PHASE));
    }

    /**
     * The same with native=on: the native unwinder keeps reading its tables from the handlers while
     * the process exits (its tables are never destroyed).
     */
    @OnEachJdk
    void systemExitWhileRequestsWithNativeFramesAreInFlight(Jdk jdk) throws Exception {
        Path recording = dir.resolve("exit.jfr");
        JvmRun.Result run = endOfJvm(jdk, "exit", "native=on", "-XX:StartFlightRecording=filename=" + recording
                + "," + JvmRun.enableEvent(jdk));
        assertEndedCleanly(run, recording, Set.of(JvmtiError.NONE, JvmtiError.OUT_OF_MEMORY, JvmtiError.NOT_AVAILABLE,
                JvmtiError.WRONG_PHASE));
    }

    @OnEachJdk
    void endOfMainWhileRequestsAreInFlightWithFileMode(Jdk jdk) throws Exception {
        Path file = dir.resolve("return.jfr");
        JvmRun.Result run = endOfJvm(jdk, "return", "file=" + file);
        assertEndedCleanly(run, file, Set.of(JvmtiError.NONE, JvmtiError.OUT_OF_MEMORY, JvmtiError.WRONG_PHASE));
    }

    @OnEachJdk
    void disableWhileRequestsAreInFlight(Jdk jdk) throws Exception {
        Path file = dir.resolve("disable.jfr");
        Path reportFile = dir.resolve("disable.txt");
        Path results = dir.resolve("disable-results");
        JvmRun.Result run = JvmRun.on(jdk, dir).name("disable").withoutRequester().stackreqOptions("file=" + file)
                .flags("-agentpath:" + Reliability.chaosLibrary().toAbsolutePath() + "=signal=40")
                .main(ShutdownApp.class, "mode=disable", "out=" + reportFile, "file=" + file, "results=" + results)
                .timeout(Duration.ofSeconds(60)).run();
        Report report = Report.read(reportFile);
        ChaosResults chaos = ChaosResults.read(results);
        List<String> problems = new ArrayList<>();
        if (report.getInt("disable.rc") != JvmtiError.NONE || report.getInt("enable2.rc") != JvmtiError.NONE) {
            problems.add("Disable or the second Enable did not return NONE");
        }
        if (report.getLong("acceptedByDisable") == 0) {
            problems.add("no request was accepted before Disable: nothing was in flight");
        }
        if (report.getLong("missingAtDisable") != 0) {
            problems.add(report.getLong("missingAtDisable") + " requests accepted before Disable returned were not in "
                    + "the file when it returned, e.g. ids " + report.get("missingAtDisableIds"));
        }
        long afterDisable = report.getLong("afterDisable");
        long enableAt = report.getLong("enableAt");
        long enabledAt = report.getLong("enabledAt");
        for (long id = 1; id <= chaos.count(); id++) {
            int rc = chaos.rc(id);
            boolean refused = id > afterDisable && id <= enableAt;
            boolean open = id <= report.getLong("beforeDisable") || id > enabledAt;
            if (refused && rc != JvmtiError.NOT_AVAILABLE) {
                problems.add("id " + id + " was requested after Disable returned and got " + rc
                        + ", not NOT_AVAILABLE");
                break;
            }
            if (open && rc != JvmtiError.NONE && rc != JvmtiError.OUT_OF_MEMORY) {
                problems.add("id " + id + " was requested while enabled and got " + rc);
                break;
            }
        }
        if (enableAt - afterDisable < 1) {
            problems.add("no request was made between Disable and Enable");
        }
        RequestScan scan = RequestScan.scan(file, chaos.count() + 1);
        problems.addAll(Ledger.eachAcceptedIdExactlyOnce(chaos, scan));
        problems.addAll(Ledger.eventThreadIsTheRequester(chaos, scan));
        problems.addAll(Ledger.statisticsExact(chaos, scan, true));
        if (!problems.isEmpty()) {
            fail(String.join("\n", problems) + "\nreport:\n" + report + chaos + "\n" + run);
        }
    }

    private JvmRun.Result endOfJvm(Jdk jdk, String mode, String stackreqOptions, String... flags) throws Exception {
        List<String> all = new ArrayList<>();
        all.add("-agentpath:" + Reliability.chaosLibrary().toAbsolutePath() + "=signal=40,keepfiring,death="
                + DEATH_REQUESTS + ",out=" + dir.resolve(mode + "-results"));
        all.addAll(List.of(flags));
        return JvmRun.on(jdk, dir).name(mode).withoutRequester().stackreqOptions(stackreqOptions)
                .flags(all.toArray(String[]::new))
                .main(ShutdownApp.class, "mode=" + mode, "out=" + dir.resolve(mode + ".txt"))
                .timeout(Duration.ofSeconds(60)).run();
    }

    private void assertEndedCleanly(JvmRun.Result run, Path file, Set<Integer> allowed) throws Exception {
        String mode = file.getFileName().toString().replace(".jfr", "");
        ChaosResults chaos = ChaosResults.read(dir.resolve(mode + "-results"));
        List<String> problems = new ArrayList<>();
        run.stderr().lines().filter(line -> line.startsWith("chaos:") || line.startsWith("[stackreq][warn]"))
                .forEach(line -> problems.add("stderr: " + line));
        if (!"1".equals(chaos.death.get("complete"))) {
            problems.add("requests made before the results were written at VMDeath had not all returned");
        }
        for (Map.Entry<Integer, Long> code : chaos.rcHistogram().entrySet()) {
            if (!allowed.contains(code.getKey())) {
                problems.add(code.getValue() + " requests returned " + code.getKey()
                        + " (expected one of " + allowed + ")");
            }
        }
        long deathFirst = Long.parseLong(chaos.death.get("deathFirst"));
        long afterDeath = 0;
        for (long id = deathFirst; id <= chaos.count(); id++) {
            afterDeath++;
            if (chaos.rc(id) != JvmtiError.WRONG_PHASE) {
                problems.add("id " + id + ", requested after VMDeath, returned " + chaos.rc(id) + ", not WRONG_PHASE");
                break;
            }
        }
        if (afterDeath < DEATH_REQUESTS) {
            problems.add("only " + afterDeath + " requests after VMDeath");
        }
        if (chaos.countWithRc(JvmtiError.NONE) == 0) {
            problems.add("no request was accepted");
        }
        RequestScan scan = RequestScan.scan(file, chaos.count() + 1);
        problems.addAll(Ledger.eachAcceptedIdExactlyOnce(chaos, scan));
        problems.addAll(Ledger.eventThreadIsTheRequester(chaos, scan));
        problems.addAll(Ledger.statisticsExact(chaos, scan, true));
        assertEquals(0, run.exitCode());
        if (!problems.isEmpty()) {
            fail(String.join("\n", problems) + "\n" + chaos + "\n" + run);
        }
    }
}
