package io.stackreq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import io.stackreq.fixtures.Cli;
import io.stackreq.profile.ProfileSettings.Sampling;
import picocli.CommandLine;

/** demo's --engine: perf task-clock by default, the CPU-time timer where perf_event_open is refused (qemu-user). */
class DemoCommandTest {

    @Test
    void perfTaskClockEveryMillisecondByDefault() {
        DemoCommand demo = new DemoCommand();
        new CommandLine(demo).parseArgs();
        assertEquals("perf", demo.engineOption.engine);
        assertEquals(new Sampling("perf", "task-clock", "1ms", null), DemoCommand.sampling(demo.engineOption.engine));
    }

    @Test
    void cpuTimerAsksForItsShortestInterval() {
        DemoCommand demo = new DemoCommand();
        new CommandLine(demo).parseArgs("--engine", "cpu-timer", "--java", "/bin/true");
        assertEquals("cpu-timer", demo.engineOption.engine);
        assertEquals(new Sampling("cpu-timer", "task-clock", "4ms", null),
                DemoCommand.sampling(demo.engineOption.engine));
    }

    @Test
    void anUnknownEngineIsOneLineBeforeAnythingRuns() {
        Cli.Result result = Cli.run("demo", "--engine", "cycles");
        assertEquals(2, result.exitCode(), result.err());
        assertEquals(1, result.err().lines().count(), result.err());
        assertTrue(result.err().contains("--engine must be perf or cpu-timer, not 'cycles'"), result.err());
    }
}
