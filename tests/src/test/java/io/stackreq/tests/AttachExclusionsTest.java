package io.stackreq.tests;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.stackreq.testapp.ExclusionsAttachTarget;
import io.stackreq.testapp.JvmtiError;
import io.stackreq.testapp.Report;
import io.stackreq.tests.support.AttachTargetRun;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEachJdk;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 28, item 4: threads JFR excludes get WRONG_PHASE after libstackreq.so was attached to a
 * running JVM too, whether JFR excluded them before the attach (a RecordingStream running from the
 * start) or after it (one started after), for themselves (NULL or by name) and named by another
 * thread; normal threads that ran before the attach get NONE.
 */
class AttachExclusionsTest {
    @TempDir
    Path dir;

    @OnEachJdk
    void threadsJfrExcludesBeforeAndAfterAnAttachGetWrongPhase(Jdk jdk) throws Exception {
        Assumptions.assumeTrue(jdk.feature() >= 14, "JFR excludes the threads of its streams, JDK 14 on; " + jdk
                + "'s JFR has no stream and excludes no Java thread");
        Path work = dir.resolve("target").toAbsolutePath();
        JvmRun.Result ended;
        String stackreqLoad;
        try (AttachTargetRun target = AttachTargetRun.start(jdk, work, ExclusionsAttachTarget.class, List.of())) {
            String pid = Long.toString(target.awaitPid());
            stackreqLoad = agentLoad(jdk, pid, JvmRun.stackreqLibrary().toAbsolutePath(),
                    "file=" + work.resolve("attached.jfr") + ",log=info");
            agentLoad(jdk, pid, JvmRun.requesterLibrary().toAbsolutePath(), "");
            Files.writeString(work.resolve("attached"), "");
            Path reportFile = work.resolve("report.txt");
            for (int i = 0; i < 1200 && !Files.exists(reportFile); i++) {
                Thread.sleep(100);
            }
            ended = target.stop();
        }
        assertEquals(0, ended.exitCode(), () -> "target\n" + ended);
        Report report = Report.read(work.resolve("report.txt"));
        String context = "\n" + report + "\n" + stackreqLoad + "\n" + ended;
        // Bound from the attach thread, the stand-ins would make the JVM warn once per native
        // (jni+resolve, on the application's stdout); bound from a boot class's frame, never.
        List<String> warnings = ended.stdout().lines().filter(l -> l.contains("Re-registering of platform native"))
                .toList();
        System.out.println(jdk + " after an attach: " + report.toString().replace('\n', ' ')
                + ended.stderr().lines().filter(l -> l.contains("JFR's exclusions")).toList() + "; JVM warnings: "
                + warnings);
        assertAll(
                () -> assertEquals(List.of(), warnings, "JVM warnings about re-registered natives" + context),
                () -> assertEquals(JvmtiError.NONE, report.getInt("enable.rc"), "Enable" + context),
                () -> assertEquals(JvmtiError.WRONG_PHASE, report.getInt("rc.beforeSelf"),
                        "dispatch thread excluded before the attach, NULL" + context),
                () -> assertEquals(JvmtiError.WRONG_PHASE, report.getInt("rc.beforeCurrent"),
                        "dispatch thread excluded before the attach, by name" + context),
                () -> assertEquals(JvmtiError.WRONG_PHASE, report.getInt("rc.ofBefore"),
                        "main naming the dispatch thread excluded before the attach" + context),
                () -> assertEquals(JvmtiError.WRONG_PHASE, report.getInt("rc.afterSelf"),
                        "dispatch thread excluded after the attach, NULL" + context),
                () -> assertEquals(JvmtiError.WRONG_PHASE, report.getInt("rc.afterCurrent"),
                        "dispatch thread excluded after the attach, by name" + context),
                () -> assertEquals(JvmtiError.WRONG_PHASE, report.getInt("rc.ofAfter"),
                        "main naming the dispatch thread excluded after the attach" + context),
                () -> assertEquals(JvmtiError.NONE, report.getInt("rc.main"), "main" + context),
                () -> assertEquals(JvmtiError.NONE, report.getInt("rc.worker"),
                        "a thread started before the attach" + context),
                () -> assertTrue(ended.stderr().contains("JFR's exclusions followed"), "log line" + context));
    }

    /** {@code jcmd <pid> JVMTI.agent_load <library> "<options>"}; fails unless the load returned 0. */
    private static String agentLoad(Jdk jdk, String pid, Path library, String options)
            throws IOException, InterruptedException {
        // Quoted: the diagnostic command parser would take an unquoted "a=b,c=d" for its own key=value.
        Process jcmd = new ProcessBuilder(jdk.tool("jcmd").toString(), pid, "JVMTI.agent_load", library.toString(),
                '"' + options + '"').redirectErrorStream(true).start();
        String output = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(jcmd.waitFor() == 0 && output.contains("return code: 0"),
                () -> "jcmd JVMTI.agent_load " + library + " failed:\n" + output);
        return output.trim();
    }
}
