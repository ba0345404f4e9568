package io.stackreq.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.stackreq.export.FleetFormat;
import io.stackreq.profile.ProfileSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "profile", mixinStandardHelpOptions = true,
        description = {"Run a JVM with the stackreq agents and a JFR recording (or, with --pid, load them into a "
                + "running JVM for --duration), then write recording.jfr, samples.jsonl, report.txt, flame.html and "
                + "profile.jfr (and with --format profile.pb.gz or profile.otlp.pb) to the output directory and "
                + "print the report.",
                "Example: stackreq profile -e task-clock+page-faults -i 1ms -o out -- -cp app.jar com.example.Main",
                "Example: stackreq profile --pid 12345 --duration 30s -o out"})
final class ProfileCommand implements Callable<Integer> {
    // The CPU-time timer fires on the kernel tick: at most 250 times a second per thread here.
    static final long CPU_TIMER_MIN_INTERVAL_NANOS = 4_000_000;
    private static final Pattern DURATION = Pattern.compile("(\\d+)(ns|us|ms|s)");

    @Spec
    CommandSpec spec;

    @Option(names = {"-e", "--event"}, paramLabel = "EVENT[+EVENT...]", defaultValue = "task-clock",
            description = "perf event to sample on, as perf list names it; group members after '+' are counted "
                    + "at every sample (default: ${DEFAULT-VALUE})")
    String event;

    @Option(names = {"-i", "--interval"}, paramLabel = "DURATION",
            description = "Sample interval of a time event, with a unit: ns, us, ms or s (default: 1ms)")
    String interval;

    @Option(names = {"-p", "--period"}, paramLabel = "N", description = "Sample every N occurrences of a count event")
    Long period;

    @Mixin
    ResultsDirectory output = new ResultsDirectory("stackreq-out");

    @Mixin
    LaunchOptions launch;

    @Mixin
    EngineOption engineOption;

    @Option(names = "--format", paramLabel = "pprof|otlp",
            description = "Also write the profile as pprof (profile.pb.gz) or OTLP (profile.otlp.pb) for a "
                    + "continuous-profiling backend; repeat for both")
    List<FleetFormat> formats = new ArrayList<>();

    @Option(names = "--native",
            description = "Native frames (C/C++ of any library, JVM stubs) above the Java frames (libstackreq's "
                    + "native=on); with --pid only when libstackreq is not loaded yet")
    boolean nativeFrames;

    @Option(names = "--all-threads",
            description = "Sample every thread of the JVM, as perf record -p does: its own (GC workers, JIT "
                    + "compilers, VM thread) and native ones too, not only the Java threads; with --native their "
                    + "events carry their native stacks (without it they are rejected and counted)")
    boolean allThreads;

    @Option(names = "--pid", paramLabel = "PID",
            description = "Profile the running JVM with this process id instead of starting one")
    Long pid;

    @Option(names = {"-d", "--duration"}, paramLabel = "DURATION", defaultValue = "10s",
            description = "With --pid: how long to profile, with a unit: ms or s (default: ${DEFAULT-VALUE})")
    String duration;

    @Parameters(paramLabel = "JAVA_ARGS", arity = "0..*",
            description = "After --: JVM options, main class (or -jar app.jar) and its arguments (not with --pid)")
    List<String> javaArgs = List.of();

    @Override
    public Integer call() throws Exception {
        if (pid != null) {
            if (!javaArgs.isEmpty() || launch.java != null) {
                throw new ParameterException(spec.commandLine(),
                        "--pid profiles a running JVM: give no --java and no java arguments");
            }
            Duration length = Duration.ofNanos(parseDuration("--duration", duration));
            return Profiling.profileAttachedAndReport(settings(null), formats, pid, length, spec.commandLine());
        }
        if (spec.commandLine().getParseResult().hasMatchedOption("--duration")) {
            throw new ParameterException(spec.commandLine(), "--duration is for --pid; a launched JVM runs to its end");
        }
        if (javaArgs.isEmpty()) {
            throw new ParameterException(spec.commandLine(),
                    "give the java arguments after -- (e.g. -- -cp app.jar Main), or --pid PID");
        }
        Profiling.profileAndReport(settings(launch.javaLauncher()), formats, spec.commandLine());
        return 0;
    }

    private ProfileSettings settings(Path java) {
        String engine = engineOption.checked(spec.commandLine());
        if (interval != null && period != null) {
            throw new ParameterException(spec.commandLine(),
                    "give --interval (time events) or --period (count events), not both");
        }
        if (period != null && period <= 0) {
            throw new ParameterException(spec.commandLine(), "--period must be > 0");
        }
        Long intervalNanos = interval == null ? null : parseDuration("--interval", interval);
        if (engine.equals(EngineOption.CPU_TIMER)) {
            if (spec.commandLine().getParseResult().hasMatchedOption("--event")) {
                throw new ParameterException(spec.commandLine(),
                        "--event is for --engine perf; the cpu-timer engine samples thread CPU time");
            }
            if (period != null) {
                throw new ParameterException(spec.commandLine(), "the cpu-timer engine takes --interval, not --period");
            }
            long asked = intervalNanos == null ? 1_000_000 : intervalNanos;
            if (asked < CPU_TIMER_MIN_INTERVAL_NANOS) {
                spec.commandLine().getErr().println("stackreq: warning: the cpu-timer engine fires at most ~250 times "
                        + "per second per thread on this machine (kernel tick), so samples come about every 4ms, "
                        + "not every "
                        + (interval == null ? "1ms" : interval) + "; use --engine perf for a shorter interval");
            }
        }
        // The 1 ms default is for time events; a count event without --period gets the agent's
        // default period for that event.
        String effectiveInterval = period == null && interval == null && leaderIsTimeEvent() ? "1ms" : interval;
        return new ProfileSettings(java, launch.agents(),
                new ProfileSettings.Sampling(engine, event, effectiveInterval, period), output.path, javaArgs,
                new ProfileSettings.Coverage(nativeFrames, allThreads));
    }

    private boolean leaderIsTimeEvent() {
        if (!engineOption.engine.equals(EngineOption.PERF)) {
            return true;
        }
        String leader = event.split("\\+", 2)[0].trim();
        return leader.equals("task-clock") || leader.equals("cpu-clock");
    }

    private long parseDuration(String option, String text) {
        Matcher matcher = DURATION.matcher(text);
        if (!matcher.matches() || matcher.group(1).length() > 12 || Long.parseLong(matcher.group(1)) == 0) {
            throw new ParameterException(spec.commandLine(),
                    option + " '" + text + "' must be a number > 0 with a unit: ns, us, ms or s (e.g. 1ms, 10s)");
        }
        long value = Long.parseLong(matcher.group(1));
        return switch (matcher.group(2)) {
            case "ns" -> value;
            case "us" -> value * 1_000;
            case "ms" -> value * 1_000_000;
            default -> value * 1_000_000_000;
        };
    }
}
