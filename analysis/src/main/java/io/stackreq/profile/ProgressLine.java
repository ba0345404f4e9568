package io.stackreq.profile;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * One status line on stderr, rewritten in place while the profiled JVM runs: elapsed time and
 * samples so far, counted from the newlines the perf agent has appended to its sample file.
 */
final class ProgressLine {
    private final PrintStream err;
    private final Path samples;
    private final long startNanos = System.nanoTime();
    private final byte[] buffer = new byte[1 << 16];
    private long bytesRead;
    private long lines;
    private int lastLength;
    private long lastUpdateNanos = System.nanoTime();

    private final boolean terminal;

    /** @param terminal whether stderr is a terminal: then the line is rewritten in place */
    ProgressLine(PrintStream err, Path samples, boolean terminal) {
        this.err = err;
        this.samples = samples;
        this.terminal = terminal;
    }

    void update() {
        lastUpdateNanos = System.nanoTime();
        countNewLines();
        // The first line of the file is its header, not a sample.
        String text = String.format(Locale.ROOT, "stackreq: profiling %.1f s, %,d samples", elapsedSeconds(),
                Math.max(0, lines - 1));
        if (terminal) {
            err.print("\r" + text + " ".repeat(Math.max(0, lastLength - text.length())));
            lastLength = text.length();
        } else {
            // In a log a carriage return would glue the line to the program's own output.
            err.println(text);
        }
        err.flush();
    }

    /** Updates the line when periodMillis have passed since the last update. */
    void updateIfDue(long periodMillis) {
        if (System.nanoTime() - lastUpdateNanos >= TimeUnit.MILLISECONDS.toNanos(periodMillis)) {
            update();
        }
    }

    void clear() {
        if (lastLength > 0) {
            err.print("\r" + " ".repeat(lastLength) + "\r");
            err.flush();
            lastLength = 0;
        }
    }

    double elapsedSeconds() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    private void countNewLines() {
        if (!Files.isRegularFile(samples)) {
            return;
        }
        try (InputStream in = Files.newInputStream(samples)) {
            in.skipNBytes(Math.min(bytesRead, Files.size(samples)));
            int n;
            while ((n = in.read(buffer)) > 0) {
                for (int i = 0; i < n; i++) {
                    if (buffer[i] == '\n') {
                        lines++;
                    }
                }
                bytesRead += n;
            }
        } catch (IOException e) {
            // The agent may be creating or rotating the file; the next update counts again.
        }
    }
}
