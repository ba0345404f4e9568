package io.stackreq.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;

import io.stackreq.demo.BiasTrap;
import io.stackreq.model.JvmSamples;
import io.stackreq.profile.ProfileSettings;
import io.stackreq.report.Report;
import io.stackreq.report.ReportEntry;
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
        Path measured = Files.createTempFile("stackreq-demo-", ".shares");
        try {
            List<String> javaArgs = List.of("-cp", ownClassPath(), BiasTrap.class.getName(), Integer.toString(seconds),
                    measured.toString());
            ProfileSettings settings = new ProfileSettings(launch.javaLauncher(), launch.agents(), sampling,
                    output.path, javaArgs);
            PrintWriter out = spec.commandLine().getOut();
            out.println("stackreq demo: " + BiasTrap.DESCRIPTION);
            out.flush();
            Report report = Profiling.profileAndReport(settings, List.of(), spec.commandLine());
            out.println();
            out.println("What to look for: BiasTrap printed the share of time it measured in each method; the total% "
                    + "of " + BiasTrap.COPY_METHOD + " (its own frames plus the System.arraycopy frames it calls) and "
                    + "of " + BiasTrap.LOOP_METHOD + " should match those shares, because every stack was taken where "
                    + "the counter overflowed, not where the JVM could next walk it; the JFR columns are what the "
                    + "JVM's own sampler made of the same run.");
            out.println(contrast(report, measured));
            out.flush();
        } finally {
            Files.deleteIfExists(measured);
        }
        return 0;
    }

    /**
     * The demo's last line: what JFR alone says of the two methods, what BiasTrap measured, and what
     * stackreq says (total shares: a method with what it calls).
     */
    static String contrast(Report report, Path measured) {
        String workload;
        try {
            double[] shares = BiasTrap.readMeasured(measured);
            workload = String.format(Locale.ROOT, "BiasTrap measured copyArrays %.1f%%, countedLoop %.1f%%", shares[0],
                    shares[1]);
        } catch (IOException e) {
            workload = "BiasTrap wrote no measurement (see its output above)";
        }
        Long jfrSamples = report.jfrSamples() == null ? null : report.jfrSamples().get(JvmSamples.EXECUTION_SAMPLE);
        String jfr = jfrSamples == null ? "JFR alone: its sampler recorded no jdk.ExecutionSample in this run"
                : String.format(Locale.ROOT, "JFR alone (its %,d jdk.ExecutionSample) says copyArrays %s, countedLoop %s",
                        jfrSamples, jfrShare(report, BiasTrap.COPY_METHOD), jfrShare(report, BiasTrap.LOOP_METHOD));
        return String.format(Locale.ROOT, "%s; %s; stackreq: copyArrays %s, countedLoop %s.", jfr, workload,
                share(report, BiasTrap.COPY_METHOD), share(report, BiasTrap.LOOP_METHOD));
    }

    private static String share(Report report, String method) {
        return entry(report, method).map(entry -> String.format(Locale.ROOT, "%.1f%%", entry.weights().totalPct()))
                .orElse("not among its rows");
    }

    private static String jfrShare(Report report, String method) {
        return entry(report, method).filter(entry -> entry.jfr() != null)
                .map(entry -> entry.jfr().get(JvmSamples.EXECUTION_SAMPLE))
                .map(share -> String.format(Locale.ROOT, "%.1f%%", share.totalPct())).orElse("not among the rows");
    }

    private static Optional<ReportEntry> entry(Report report, String method) {
        return report.tables().entries().stream().filter(entry -> entry.name().equals(method)).findFirst();
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
