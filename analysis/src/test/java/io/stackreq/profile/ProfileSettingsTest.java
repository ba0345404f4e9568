package io.stackreq.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.stackreq.profile.ProfileSettings.Coverage;
import io.stackreq.profile.ProfileSettings.Sampling;

/** The JVM command line profile runs: the interface fixed with the agents' authors. */
class ProfileSettingsTest {
    private static final AgentDirectory AGENTS = new AgentDirectory(Path.of("/n"));
    private static final Sampling TASK_CLOCK_1MS = new Sampling("perf", "task-clock", "1ms", null);

    @Test
    void perfEngineWithAGroupAndAnInterval() {
        ProfileSettings settings = new ProfileSettings(Path.of("/jdk/bin/java"), AGENTS,
                new Sampling("perf", "task-clock+page-faults", "1ms", null), Path.of("/out"),
                List.of("-cp", "app.jar", "Main", "x"));
        assertEquals(List.of("/jdk/bin/java", "-agentpath:/n/libstackreq.so",
                "-agentpath:/n/libstackreq-perf.so=event=task-clock+page-faults,interval=1ms,out=/out/samples.jsonl",
                "-XX:StartFlightRecording=filename=/out/recording.jfr,settings=default,settings=/n/stackreq.jfc",
                "-cp", "app.jar", "Main", "x"), settings.commandLine());
    }

    @Test
    void nativeFramesTurnOnLibstackreqsOption() {
        ProfileSettings settings = new ProfileSettings(Path.of("java"), AGENTS, TASK_CLOCK_1MS,
                Path.of("/out"), List.of("Main"), new Coverage(true, false));
        assertEquals("-agentpath:/n/libstackreq.so=native=on", settings.commandLine().get(1));
        assertEquals("native=on", settings.requestAgentOptions());
    }

    @Test
    void allThreadsTurnOnThePerfAgentsThreadsAll() {
        ProfileSettings settings = new ProfileSettings(Path.of("java"), AGENTS, TASK_CLOCK_1MS,
                Path.of("/out"), List.of("Main"), new Coverage(true, true));
        assertEquals("event=task-clock,interval=1ms,threads=all,out=/out/samples.jsonl", settings.perfAgentOptions());
        ProfileSettings javaOnly = new ProfileSettings(Path.of("java"), AGENTS, TASK_CLOCK_1MS,
                Path.of("/out"), List.of("Main"));
        assertEquals("event=task-clock,interval=1ms,out=/out/samples.jsonl", javaOnly.perfAgentOptions());
    }

    @Test
    void countEventWithAPeriod() {
        ProfileSettings settings = new ProfileSettings(Path.of("java"), AGENTS,
                new Sampling("perf", "page-faults", null, 100L), Path.of("/out"), List.of("Main"));
        assertEquals("-agentpath:/n/libstackreq-perf.so=event=page-faults,period=100,out=/out/samples.jsonl",
                settings.commandLine().get(2));
    }

    @Test
    void cpuTimerEngineTakesNoEvent() {
        ProfileSettings settings = new ProfileSettings(Path.of("java"), AGENTS,
                new Sampling("cpu-timer", "task-clock", "4ms", null), Path.of("/out"), List.of("Main"));
        assertEquals("-agentpath:/n/libstackreq-perf.so=engine=cpu-timer,interval=4ms,out=/out/samples.jsonl",
                settings.commandLine().get(2));
    }

    @Test
    void aRunningJvmGetsTheSamePerfAgentOptions() {
        ProfileSettings settings = new ProfileSettings(null, AGENTS, new Sampling("perf", "task-clock", "2ms", null),
                Path.of("/out"), List.of());
        assertEquals("event=task-clock,interval=2ms,out=/out/samples.jsonl", settings.perfAgentOptions());
    }
}
