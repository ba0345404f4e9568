package io.stackreq.validation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Minimal JFR settings files: every event the JDK would record by default stays off, so a run
 * records only what it measures (and JFR's own periodic events add no noise).
 */
public final class Jfc {
    private Jfc() {
    }

    /** One enabled event with one setting, for {@link #write}. */
    public static String event(String name, String setting, String value) {
        return "  <event name=\"" + name + "\"><setting name=\"enabled\">true</setting><setting name=\"" + setting
                + "\">" + value + "</setting></event>\n";
    }

    /**
     * Writes {@code dir/stack-trace-request.jfc}, which enables {@code jdk.StackTraceRequest} alone,
     * and returns its absolute path: what {@code +jdk.StackTraceRequest#enabled=true} gives on JDK
     * 17 and later, on JDK 11 too (whose {@code -XX:StartFlightRecording} has no such syntax).
     */
    public static Path stackTraceRequestOnly(Path dir) {
        return write(dir, "stack-trace-request",
                "  <event name=\"jdk.StackTraceRequest\"><setting name=\"enabled\">true</setting></event>\n");
    }

    /** Writes {@code dir/<name>.jfc} holding {@code events} and returns its absolute path. */
    public static Path write(Path dir, String name, String events) {
        Path file = dir.resolve(name + ".jfc").toAbsolutePath();
        String text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<configuration version=\"2.0\" label=\"" + name
                + "\">\n" + events + "</configuration>\n";
        try {
            Files.createDirectories(dir);
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }
}
