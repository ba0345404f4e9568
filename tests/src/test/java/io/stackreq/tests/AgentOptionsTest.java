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
import io.stackreq.tests.support.OnEachJdk;
import io.stackreq.tests.support.ScenarioRun;
import org.junit.jupiter.api.io.TempDir;

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

    @OnEachJdk
    void unknownOptionStopsTheJvmWithOneLineNamingIt(Jdk jdk) {
        assertStopsWithOneLineNaming(jdk, "bogus=1", "bogus");
    }

    @OnEachJdk
    void malformedOptionStopsTheJvmWithOneLineNamingIt(Jdk jdk) {
        assertStopsWithOneLineNaming(jdk, "ring=lots", "ring=lots");
    }

    private void assertStopsWithOneLineNaming(Jdk jdk, String options, String named) {
        JvmRun.Result result = runWith(jdk, options);
        assertNotEquals(0, result.exitCode(), () -> "the JVM ran with " + options + "\n" + result);
        List<String> lines = stackreqLines(result);
        assertEquals(1, lines.size(), () -> "one line from stackreq expected\n" + result);
        assertTrue(lines.get(0).contains(named), () -> "the line does not name " + named + "\n" + result);
    }

    @OnEachJdk
    void defaultLogIsOneStartupLineWithVersionJdkAndMode(Jdk jdk) throws Exception {
        ScenarioRun run = ScenarioRun.run(jdk, dir, "available", "");
        assertEquals("true", run.report.get("available"), () -> "ids not listed\n" + run);
        List<String> lines = stackreqLines(run.result);
        assertEquals(1, lines.size(), () -> "one startup line expected\n" + run);
        String line = lines.get(0);
        assertTrue(line.contains("JDK " + jdk.feature()) && line.contains("mode:"),
                () -> "startup line lacks the JDK or the mode: " + line);
    }

    @OnEachJdk
    void extensionsOffKeepsTheIdsOutOfGetExtensionFunctions(Jdk jdk) throws Exception {
        Path report = dir.resolve("off.txt");
        JvmRun.on(jdk, dir).stackreqOptions("extensions=off").requesterOptions("optional")
                .main(Scenarios.class, "available", "out=" + report).run();
        Report off = Report.read(report);
        assertEquals("false", off.get("available"), () -> "extensions=off still lists the ids\n" + off);
    }
}
