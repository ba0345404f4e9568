package io.stackreq.cli;

import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** {@code profile}'s and {@code demo}'s {@code --engine}: how the perf agent gets its sample signals. */
final class EngineOption {
    static final String PERF = "perf";
    static final String CPU_TIMER = "cpu-timer";

    @Option(names = "--engine", paramLabel = "perf|cpu-timer", defaultValue = PERF,
            description = "Sampling engine of the perf agent: perf events, or the thread CPU-time timer where "
                    + "perf_event_open is refused (default: ${DEFAULT-VALUE})")
    String engine = PERF;

    /** The engine, after checking it is one the perf agent has. */
    String checked(CommandLine commandLine) {
        if (!engine.equals(PERF) && !engine.equals(CPU_TIMER)) {
            throw new ParameterException(commandLine, "--engine must be perf or cpu-timer, not '" + engine + "'");
        }
        return engine;
    }
}
