package io.stackreq.tests.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/** Reads recordings with the JDK's own reader, {@code jdk.jfr.consumer.RecordingFile}. */
public final class JfrFile {
    public static final String REQUEST = "jdk.StackTraceRequest";
    public static final String STATISTICS = "stackreq.RequestStatistics";

    private JfrFile() {
    }

    /** Every event of this type, in file order. */
    public static List<RecordedEvent> events(Path file, String type) {
        List<RecordedEvent> events = new ArrayList<>();
        try (RecordingFile recording = new RecordingFile(file)) {
            while (recording.hasMoreEvents()) {
                RecordedEvent event = recording.readEvent();
                if (event.getEventType().getName().equals(type)) {
                    events.add(event);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        return events;
    }

    public static List<RecordedEvent> requests(Path file) {
        return events(file, REQUEST);
    }

    /** The statistics event with the latest start time (ties: the last in the file). */
    public static RecordedEvent lastStatistics(Path file) {
        List<RecordedEvent> all = events(file, STATISTICS);
        if (all.isEmpty()) {
            throw new AssertionError("no " + STATISTICS + " event in " + file);
        }
        RecordedEvent last = all.get(0);
        for (RecordedEvent event : all) {
            if (event.getStartTime().compareTo(last.getStartTime()) >= 0) {
                last = event;
            }
        }
        return last;
    }

    /** "package.Class.method" of a frame. */
    public static String methodOf(RecordedFrame frame) {
        RecordedMethod method = frame.getMethod();
        if (method == null) {
            return "<no method>";
        }
        return (method.getType() == null ? "<no class>" : method.getType().getName()) + "." + method.getName();
    }

    /** Top frame's "package.Class.method", or null when the event has no frames. */
    public static String topMethod(RecordedEvent event) {
        RecordedStackTrace stack = event.getStackTrace();
        if (stack == null || stack.getFrames().isEmpty()) {
            return null;
        }
        return methodOf(stack.getFrames().get(0));
    }

    public static List<String> methods(RecordedEvent event) {
        RecordedStackTrace stack = event.getStackTrace();
        if (stack == null) {
            return List.of();
        }
        return stack.getFrames().stream().map(JfrFile::methodOf).collect(Collectors.toList());
    }

    public static String threadName(RecordedEvent event) {
        RecordedThread thread = event.getThread();
        return thread == null ? null : thread.getJavaName();
    }

    /** One line for assertion messages. */
    public static String describe(RecordedEvent event) {
        RecordedThread thread = event.getThread();
        return String.format("userData=%s failed=%s biased=%s thread=%s/os %s stack=%s",
                event.getLong("userData"), event.getBoolean("failed"), event.getBoolean("biased"),
                thread == null ? null : thread.getJavaName(), thread == null ? null : thread.getOSThreadId(),
                methods(event));
    }

    /** Field values of a statistics event, for assertion messages. */
    public static String describeStatistics(RecordedEvent event) {
        return event.getFields().stream()
                .map(f -> f.getName() + "=" + event.getValue(f.getName()))
                .collect(Collectors.joining(", "));
    }

    public static Comparator<RecordedEvent> byStartTime() {
        return Comparator.comparing(RecordedEvent::getStartTime);
    }
}
