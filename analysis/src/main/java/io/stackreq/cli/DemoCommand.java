package io.stackreq.cli;

import java.net.URISyntaxException;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.Callable;

import io.stackreq.demo.BiasTrap;
import io.stackreq.profile.ProfileSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Profile the bundled BiasTrap workload (a safepoint-bias trap: ~60%% of its CPU in "
                + "System.arraycopy, ~40%% in a cheap counted loop) with task-clock every 1ms (--engine cpu-timer: the "
                + "thread CPU-time timer every 4ms, its shortest here), print the report and where the files are. "
                + "Takes well under a minute."})
final class DemoCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ResultsDirectory output = new ResultsDirectory("stackreq-demo");

    @Option(names = "--seconds", paramLabel = "N", defaultValue = "15",
            description = "How long the workload runs (default: ${DEFAULT-VALUE})")
    int seconds;

    @Mixin
    LaunchOptions launch;

    @Mixin
    EngineOption engineOption;

    @Override
    public Integer call() throws Exception {
        if (seconds < 1 || seconds > 50) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--seconds must be 1..50");
        }
        ProfileSettings.Sampling sampling = sampling(engineOption.checked(spec.commandLine()));
        List<String> javaArgs = List.of("-cp", ownClassPath(), BiasTrap.class.getName(), Integer.toString(seconds));
        ProfileSettings settings = new ProfileSettings(launch.javaLauncher(), launch.agents(), sampling, output.path,
                javaArgs);
        spec.commandLine().getOut().println("stackreq demo: " + BiasTrap.DESCRIPTION);
        spec.commandLine().getOut().flush();
        int exitCode = Profiling.profileAndReport(settings, List.of(), spec.commandLine());
        spec.commandLine().getOut().println();
        spec.commandLine().getOut().println("What to look for: BiasTrap printed the share of time it measured in "
                + "each method; the total% of " + BiasTrap.COPY_METHOD + " (its own frames plus the "
                + "System.arraycopy frames it calls) and of " + BiasTrap.LOOP_METHOD + " should match those "
                + "shares, because every stack was taken where the counter overflowed, not at the next safepoint.");
        spec.commandLine().getOut().flush();
        return exitCode;
    }

    /**
     * task-clock every 1 ms; the CPU-time timer cannot fire more often than the kernel tick, so it
     * is asked for what it gives rather than for 1 ms with a warning.
     */
    static ProfileSettings.Sampling sampling(String engine) {
        if (engine.equals(EngineOption.CPU_TIMER)) {
            return new ProfileSettings.Sampling(engine, "task-clock",
                    ProfileCommand.CPU_TIMER_MIN_INTERVAL_NANOS / 1_000_000 + "ms", null);
        }
        return new ProfileSettings.Sampling(EngineOption.PERF, "task-clock", "1ms", null);
    }

    /** stackreq.jar itself (or the classes directory in a build): it holds the demo workloads. */
    private static String ownClassPath() throws URISyntaxException {
        return Paths.get(BiasTrap.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
