package io.stackreq.profile;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import io.stackreq.model.InputException;
import io.stackreq.output.OutputFiles;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/** Runs the profiled JVM with both agents and a JFR recording, showing progress on stderr. */
public final class ProfileRun {

    /** @param exitCode the JVM's exit code; @param seconds how long it ran; @param samples sample lines seen */
    public record Result(int exitCode, double seconds) {
    }

    private ProfileRun() {
    }

    /**
     * Starts the JVM, waits for it and returns once it has exited. Ctrl-C stops the JVM (which
     * then writes its recording) but not the CLI, so the results are still written.
     *
     * @param interactive whether stderr is a terminal: then the progress line updates in place twice a
     *                    second, else a progress line is printed every 10 seconds
     */
    public static Result run(ProfileSettings settings, PrintStream err, boolean interactive)
            throws IOException, InterruptedException {
        prepareOutputs(settings);

        ProcessBuilder builder = new ProcessBuilder(settings.commandLine()).inheritIO();
        SignalHandler previous = ignoreInterrupt();
        try {
            Process jvm;
            try {
                jvm = builder.start();
            } catch (IOException e) {
                throw new InputException("cannot start " + settings.java() + ": " + e.getMessage(), e);
            }
            ProgressLine progress = new ProgressLine(err, settings.samples(), interactive);
            long updateMillis = interactive ? 500 : 10_000;
            while (!jvm.waitFor(updateMillis, TimeUnit.MILLISECONDS)) {
                progress.update();
            }
            progress.clear();
            double seconds = progress.elapsedSeconds();
            err.println(String.format(Locale.ROOT, "stackreq: the JVM exited with code %d after %.1f s",
                    jvm.exitValue(), seconds));
            return new Result(jvm.exitValue(), seconds);
        } finally {
            if (previous != null) {
                Signal.handle(new Signal("INT"), previous);
            }
        }
    }

    /**
     * Creates the output directory and, empty, the two files the profiled JVM writes. Stale files
     * from an earlier run would be joined with this run's data. Both are created rw-r--r--, so
     * that the JVM's JFR and the perf agent write into files of that mode (they keep an existing
     * file's mode; JFR would create one rw-rw-rw- under a umask of 000) rather than through a link
     * planted at the path.
     */
    static void prepareOutputs(ProfileSettings settings) throws IOException {
        OutputFiles.createDirectories(settings.output());
        for (java.nio.file.Path output : new java.nio.file.Path[] {settings.recording(), settings.samples()}) {
            Files.deleteIfExists(output);
            OutputFiles.newOutputStream(output).close();
        }
    }

    private static SignalHandler ignoreInterrupt() {
        try {
            // The terminal sends SIGINT to the whole process group: the JVM stops and dumps its
            // recording; the CLI waits for it and then analyses what was recorded.
            return Signal.handle(new Signal("INT"), signal -> {
            });
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
