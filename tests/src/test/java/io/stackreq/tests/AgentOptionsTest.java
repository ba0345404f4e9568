package io.stackreq.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import io.stackreq.testapp.Report;
import io.stackreq.testapp.Scenarios;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.ScenarioRun;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 2, agent options: bad options stop the JVM with one line naming the option, the default
 * log is one startup line, and {@code extensions=off} keeps the ids out of
 * {@code GetExtensionFunctions}.
 */
class AgentOptionsTest {
    @TempDir
    Path dir;

    /** Lines the agent printed: "stackreq: ..." (errors) or "[stackreq] ..." (log). */
    private static List<String> stackreqLines(JvmRun.Result result) {
        return (result.stderr() + "\n" + result.stdout()).lines()
                .filter(line -> line.startsWith("stackreq:") || line.startsWith("[stackreq]")).toList();
    }

    private JvmRun.Result runWith(Jdk jdk, String options) {
        return JvmRun.on(jdk, dir).stackreqOptions(options).withoutRequester()
                .main(Scenarios.class, "available", "out=" + dir.resolve("unused.txt")).start();
    }

    @ParameterizedTest
    @MethodSource("io.stackreq.tests.support.Jdk#all")
    void unknownOptionStopsTheJvmWithOneLineNamingIt(Jdk jdk) {
        JvmRun.Result result = runWith(jdk, "bogus=1");
        assertNotEquals(0, result.exitCode(), () -> "the JVM ran with an unknown option\n" + result);
        List<String> lines = stackreqLines(result);
        assertEquals(1, lines.size(), () -> "one line from stackreq expected\n" + result);
        assertTrue(lines.get(0).contains("bogus"), () -> "the line does not name the option\n" + result);
    }

    @ParameterizedTest
    @MethodSource("io.stackreq.tests.support.Jdk#all")
    void malformedOptionStopsTheJvmWithOneLineNamingIt(Jdk jdk) {
        JvmRun.Result result = runWith(jdk, "ring=lots");
        assertNotEquals(0, result.exitCode(), () -> "the JVM ran with ring=lots\n" + result);
        List<String> lines = stackreqLines(result);
        assertEquals(1, lines.size(), () -> "one line from stackreq expected\n" + result);
        assertTrue(lines.get(0).contains("ring=lots"), () -> "the line does not name the option\n" + result);
    }

    @ParameterizedTest
    @MethodSource("io.stackreq.tests.support.Jdk#all")
    void defaultLogIsOneStartupLineWithVersionJdkAndMode(Jdk jdk) throws Exception {
        ScenarioRun run = ScenarioRun.run(jdk, dir, "available", "");
        assertEquals("true", run.report.get("available"), () -> "ids not listed\n" + run);
        List<String> lines = stackreqLines(run.result);
        assertEquals(1, lines.size(), () -> "one startup line expected\n" + run);
        String line = lines.get(0);
        assertTrue(line.contains("JDK " + jdk.feature()) && line.contains("mode:"),
                () -> "startup line lacks the JDK or the mode: " + line);
    }

    @ParameterizedTest
    @MethodSource("io.stackreq.tests.support.Jdk#all")
    void extensionsOffKeepsTheIdsOutOfGetExtensionFunctions(Jdk jdk) throws Exception {
        Path report = dir.resolve("off.txt");
        JvmRun.on(jdk, dir).stackreqOptions("extensions=off").requesterOptions("optional")
                .main(Scenarios.class, "available", "out=" + report).run();
        Report off = Report.read(report);
        assertEquals("false", off.get("available"), () -> "extensions=off still lists the ids\n" + off);
    }
}
