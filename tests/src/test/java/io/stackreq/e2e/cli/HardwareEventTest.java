package io.stackreq.e2e.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEachJdk;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 3, acceptance 3: on this machine (no hardware PMU) {@code profile -e cache-misses} fails:
 * exit code non-zero, and the perf agent's one line names the event and the errno (ENOENT),
 * with no Java stack trace. The perf_event_attr setup of every event is unit-tested natively
 * ({@code jvmti-ext/perf-agent/test/perf_events_test.cpp}).
 */
@Tag("alone")
class HardwareEventTest {
    @TempDir
    Path dir;

    /** The command the issue names: a HW event and no period, so the event's default period applies. */
    @OnEachJdk
    void hardwareEventFailsWithOneLineNamingTheEventAndErrno(Jdk jdk) throws IOException {
        assertFailsNamingTheEvent(jdk, List.of("-e", "cache-misses"));
    }

    /** With an explicit period: the same failure, so the perf agent's message is not in doubt. */
    @OnEachJdk
    void hardwareEventWithPeriodFailsWithOneLineNamingTheEventAndErrno(Jdk jdk) throws IOException {
        assertFailsNamingTheEvent(jdk, List.of("-e", "cache-misses", "-p", "10000"));
    }

    private void assertFailsNamingTheEvent(Jdk jdk, List<String> eventOptions) throws IOException {
        Path out = dir.resolve("out");
        List<String> args = new ArrayList<>(List.of("profile"));
        args.addAll(eventOptions);
        args.addAll(List.of("-o", out.toString(), "--java", jdk.java().toString(), "--", "-cp",
                JvmRun.cliJar().toString(), Profiles.TWO_PHASE, "1"));
        JvmRun.Result result = JvmRun.cli(Jdk.current(), dir, args).name("profile").timeout(Duration.ofSeconds(60))
                .start();
        String context = jdk + "\n" + result;
        assertNotEquals(0, result.exitCode(), () -> "profile of a HW event succeeded\n" + context);
        List<String> agentLines = result.lines().stream().filter(line -> line.startsWith("stackreq-perf:")).toList();
        assertEquals(1, agentLines.size(), () -> "one line from the perf agent expected\n" + context);
        String line = agentLines.get(0);
        assertTrue(line.contains("'cache-misses'"), () -> "the line does not name the event: " + line + "\n" + context);
        assertTrue(line.contains("ENOENT"), () -> "the line does not name the errno: " + line + "\n" + context);
        assertFalse(result.lines().stream().anyMatch(l -> l.startsWith("\tat ") || l.contains("Exception")),
                () -> "a Java stack trace or exception was printed\n" + context);
        // profile creates recording.jfr empty (rw-r--r--) before the JVM starts; nothing may be in it.
        Path recording = out.resolve("recording.jfr");
        assertFalse(Files.exists(recording) && Files.size(recording) > 0, () -> "a recording was written\n" + context);
    }
}
