package io.stackreq.cli;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.stackreq.export.FleetFormat;
import io.stackreq.export.JoinedProfileBuilder;
import io.stackreq.join.JoinInputs;
import io.stackreq.join.JoinListener;
import io.stackreq.join.JoinOutcome;
import io.stackreq.join.JoinRunner;
import io.stackreq.join.PreparedJoin;
import io.stackreq.model.InputException;
import io.stackreq.output.EnrichedRecordingWriter;
import io.stackreq.output.OutputFiles;
import io.stackreq.profile.AttachRun;
import io.stackreq.profile.ProfileRun;
import io.stackreq.profile.ProfileSettings;
import io.stackreq.report.Grouping;
import io.stackreq.report.Report;
import io.stackreq.report.ReportBuilder;
import io.stackreq.report.TextReportFormatter;
import io.stackreq.tree.FrameKey;
import io.stackreq.tree.TreeBuilder;
import picocli.CommandLine;

/** {@code profile} and {@code demo}: run the JVM (or profile a running one), then write and print the results. */
final class Profiling {
    static final String REPORT = "report.txt";
    static final String FLAME = "flame.html";
    static final String ENRICHED = "profile.jfr";
    private static final int REPORT_TOP = 20;

    private Profiling() {
    }

    /** {@code --java}, else {@code $JAVA_HOME/bin/java}, else the java running this CLI. */
    static Path javaLauncher(Path option) {
        if (option != null) {
            if (!Files.isExecutable(option)) {
                throw new InputException("--java " + option + " is not an executable file");
            }
            return option;
        }
        String javaHome = System.getenv("JAVA_HOME");
        if (javaHome != null && Files.isExecutable(Paths.get(javaHome, "bin", "java"))) {
            return Paths.get(javaHome, "bin", "java");
        }
        return Paths.get(System.getProperty("java.home"), "bin", "java");
    }

    /**
     * @param formats fleet formats to write besides the report, flame graph and profile.jfr
     * @return the report printed
     */
    static Report profileAndReport(ProfileSettings settings, List<FleetFormat> formats, CommandLine commandLine)
            throws Exception {
        PrintWriter err = commandLine.getErr();
        err.println("stackreq: running " + String.join(" ", settings.commandLine()));
        err.flush();
        ProfileRun.Result run = ProfileRun.run(settings, System.err, System.console() != null);
        if (!hasData(settings.recording())) {
            throw new InputException("the JVM exited with code " + run.exitCode() + " and wrote no recording "
                    + settings.recording() + " (see its messages above)");
        }
        return writeResults(settings, formats, commandLine);
    }

    /** {@code profile --pid}: profiles the running JVM for the duration, then writes what profile writes. */
    static int profileAttachedAndReport(ProfileSettings settings, List<FleetFormat> formats, long pid,
            Duration duration, CommandLine commandLine) throws Exception {
        AttachRun.Result run = AttachRun.run(settings, pid, duration, System.err, System.console() != null);
        commandLine.getErr().println(String.format(Locale.ROOT, "stackreq: profiled JVM %d for %.1f s%s", pid,
                run.seconds(), run.interrupted() ? " (ended early by Ctrl-C)" : ""));
        commandLine.getErr().flush();
        if (!hasData(settings.recording())) {
            throw new InputException("JVM " + pid + " wrote no recording " + settings.recording()
                    + " (see its standard error)");
        }
        writeResults(settings, formats, commandLine);
        return 0;
    }

    /** recording-unbiased.jfr's start, or null (one line on stderr) when the recording cannot be rewritten. */
    private static Unbiasing startUnbiasing(PreparedJoin join, Path output, PrintWriter err) {
        try {
            return Unbiasing.start(join, output);
        } catch (InputException e) {
            err.println("stackreq: warning: " + Unbiasing.FILE + " not written: " + e.getMessage());
            return null;
        }
    }

    /** ProfileRun creates both files empty before the JVM starts: empty means not written. */
    private static boolean hasData(Path file) throws IOException {
        return Files.isRegularFile(file) && Files.size(file) > 0;
    }

    /**
     * Joins recording.jfr with samples.jsonl once, into the report, the flame graph, profile.jfr,
     * recording-unbiased.jfr and the fleet formats asked for.
     */
    static Report writeResults(ProfileSettings settings, List<FleetFormat> formats, CommandLine commandLine)
            throws IOException {
        PrintWriter out = commandLine.getOut();
        PrintWriter err = commandLine.getErr();
        Path directory = settings.output();
        TreeBuilder trees = new TreeBuilder(FrameKey.METHOD, false, false);
        JoinOutcome outcome;
        long enriched = -1;
        boolean withSamples = hasData(settings.samples());
        if (!withSamples) {
            err.println("stackreq: warning: the perf agent wrote no " + settings.samples()
                    + "; the report counts stack-trace events only; profile.jfr and " + Unbiasing.FILE + " are not written");
        }
        JoinedProfileBuilder stacks = null;
        Unbiasing.Summary unbiased = null;
        try (PreparedJoin join = JoinRunner.prepare(JoinInputs.of(settings.recording(),
                withSamples ? settings.samples() : null))) {
            // The stack profile only when a fleet format is asked for.
            stacks = formats.isEmpty() ? null : JoinOutputs.stackProfile(join);
            List<JoinListener> listeners = new ArrayList<>(List.of(trees));
            if (stacks != null) {
                listeners.add(stacks);
            }
            if (withSamples) {
                Unbiasing unbiasing = startUnbiasing(join, directory.resolve(Unbiasing.FILE), err);
                try {
                    if (unbiasing != null) {
                        listeners.add(unbiasing.listener());
                    }
                    Enrichment.Result result = Enrichment.run(join, directory.resolve(ENRICHED), listeners);
                    outcome = result.outcome();
                    enriched = result.written();
                    unbiased = unbiasing == null ? null : unbiasing.finish();
                } finally {
                    if (unbiasing != null) {
                        unbiasing.close();
                    }
                }
            } else {
                outcome = join.join(listeners);
            }
        }
        for (FleetFormat format : formats) {
            format.write(stacks.profile(), directory.resolve(format.fileName()), false);
        }
        Report report = new ReportBuilder(Grouping.METHOD, REPORT_TOP).build(outcome, trees.tree(), trees.byThread(),
                trees.tallies());
        String text = new TextReportFormatter().format(report);
        try (BufferedWriter file = OutputFiles.newWriter(directory.resolve(REPORT))) {
            file.write(text);
        }
        JoinOutputs.writeFlameGraph(directory.resolve(FLAME), trees.tree(), outcome);

        out.print(text);
        out.println();
        out.println("Results in " + directory + "/");
        String row = "  %-22s %s%n";
        out.printf(Locale.ROOT, row, REPORT, "this report (more: stackreq report "
                + settings.recording() + " --samples "
                + settings.samples() + " --by line|stack --threads --format json)");
        out.printf(Locale.ROOT, row, FLAME, "interactive flame graph, open it in a browser");
        if (unbiased != null) {
            out.printf(Locale.ROOT, row, Unbiasing.FILE, unbiased.describe() + ": for JDK Mission Control");
        }
        if (enriched >= 0) {
            out.printf(Locale.ROOT, row, ENRICHED, String.format(Locale.ROOT,
                    "stackreq's %,d samples alone, as jdk.ExecutionSample (JMC, jfr view hot-methods, "
                    + "async-profiler's converter) and as %s with every counter", enriched,
                    EnrichedRecordingWriter.EVENT_NAME));
        }
        for (FleetFormat format : formats) {
            out.printf(Locale.ROOT, row, format.fileName(), format.description());
        }
        out.printf(Locale.ROOT, row, ProfileSettings.RECORDING,
                "the JVM's JFR recording with the jdk.StackTraceRequest events");
        out.printf(Locale.ROOT, row, ProfileSettings.SAMPLES, "the perf agent's samples (JSON lines)");
        out.flush();
        return report;
    }
}
