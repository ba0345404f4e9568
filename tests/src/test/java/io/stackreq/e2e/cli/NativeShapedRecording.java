package io.stackreq.e2e.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.openjdk.jmc.flightrecorder.writer.api.Recording;
import org.openjdk.jmc.flightrecorder.writer.api.Recordings;
import org.openjdk.jmc.flightrecorder.writer.api.Type;
import org.openjdk.jmc.flightrecorder.writer.api.TypedValue;
import org.openjdk.jmc.flightrecorder.writer.api.Types;

/**
 * A recording shaped like one from a JDK that emits {@code jdk.StackTraceRequest} itself, written
 * with JMC's {@code flightrecorder.writer}: the event has the JDK's fields in the JDK's order
 * (startTime, duration, eventThread, stackTrace, userData, failed, biased), frames carry the
 * JDK's frame-type names, and there is no stackreq chunk and no stackreq statistics event.
 * Every field of every value is set (JMC 9.1.1's writer misaligns values with unset fields).
 * One tick is one nanosecond and tick 0 is the epoch, so times are written exactly.
 */
final class NativeShapedRecording {
    /** A frame, top first in {@link Event#frames}. */
    record Frame(String className, String method, String descriptor, int line, int bci, String type) {
    }

    record Event(long userData, long startEpochNanos, String thread, long osThreadId, boolean failed, boolean biased,
            List<Frame> frames) {
    }

    private final List<Event> events = new ArrayList<>();

    NativeShapedRecording add(Event event) {
        events.add(event);
        return this;
    }

    int size() {
        return events.size();
    }

    Path write(Path file) throws IOException {
        long start = events.stream().mapToLong(Event::startEpochNanos).min().orElse(1_700_000_000_000_000_000L);
        long end = events.stream().mapToLong(Event::startEpochNanos).max().orElse(start);
        try (Recording recording = Recordings.newRecording(file, settings -> settings.withJdkTypeInitialization()
                .withTimestamp(start).withStartTicks(start).withDuration(Math.max(1, end - start)))) {
            Types types = recording.getTypes();
            Type eventType = recording.registerType("jdk.StackTraceRequest", "jdk.jfr.Event", type -> type
                    .addAnnotation(Types.JDK.ANNOTATION_LABEL, "Stack Trace Request")
                    .addField("startTime", Types.Builtin.LONG,
                            f -> f.addAnnotation(Types.JDK.ANNOTATION_TIMESTAMP, "TICKS"))
                    .addField("duration", Types.Builtin.LONG,
                            f -> f.addAnnotation(Types.JDK.ANNOTATION_TIMESPAN, "TICKS"))
                    .addField("eventThread", Types.JDK.THREAD)
                    .addField("stackTrace", Types.JDK.STACK_TRACE)
                    .addField("userData", Types.Builtin.LONG)
                    .addField("failed", Types.Builtin.BOOLEAN)
                    .addField("biased", Types.Builtin.BOOLEAN));
            Map<String, TypedValue> threads = new HashMap<>();
            Map<Frame, TypedValue> frames = new HashMap<>();
            for (Event event : events) {
                TypedValue thread = threads.computeIfAbsent(event.thread() + "\0" + event.osThreadId(),
                        key -> types.getType(Types.JDK.THREAD).asValue(t -> t.putField("osName", event.thread())
                                .putField("osThreadId", event.osThreadId()).putField("javaName", event.thread())
                                .putField("group", types.getType(Types.JDK.THREAD_GROUP).nullValue())));
                TypedValue stackTrace;
                if (event.frames().isEmpty()) {
                    stackTrace = types.getType(Types.JDK.STACK_TRACE).nullValue();
                } else {
                    TypedValue[] values = new TypedValue[event.frames().size()];
                    for (int i = 0; i < values.length; i++) {
                        values[i] = frames.computeIfAbsent(event.frames().get(i), frame -> frame(types, frame));
                    }
                    stackTrace = types.getType(Types.JDK.STACK_TRACE)
                            .asValue(s -> s.putField("truncated", false).putField("frames", values));
                }
                recording.writeEvent(eventType.asValue(v -> v.putField("startTime", event.startEpochNanos())
                        .putField("duration", 0L)
                        .putField("eventThread", thread)
                        .putField("stackTrace", stackTrace)
                        .putField("userData", event.userData())
                        .putField("failed", event.failed())
                        .putField("biased", event.biased())));
            }
        }
        return file;
    }

    private static TypedValue frame(Types types, Frame frame) {
        String internalName = frame.className().replace('.', '/');
        String packageName = internalName.contains("/") ? internalName.substring(0, internalName.lastIndexOf('/')) : "";
        TypedValue javaPackage = types.getType(Types.JDK.PACKAGE).asValue(p -> p.putField("name", packageName)
                .putField("module", types.getType(Types.JDK.MODULE).nullValue()).putField("exported", true));
        TypedValue javaClass = types.getType(Types.JDK.CLASS).asValue(c -> c
                .putField("classLoader", types.getType(Types.JDK.CLASS_LOADER).nullValue())
                .putField("name", internalName).putField("package", javaPackage).putField("modifiers", 1)
                .putField("hidden", false));
        TypedValue method = types.getType(Types.JDK.METHOD).asValue(m -> m.putField("type", javaClass)
                .putField("name", frame.method()).putField("descriptor", frame.descriptor()).putField("modifiers", 9)
                .putField("hidden", false));
        TypedValue frameType = types.getType(Types.JDK.FRAME_TYPE)
                .asValue(t -> t.putField("description", frame.type()));
        return types.getType(Types.JDK.STACK_FRAME).asValue(f -> f.putField("method", method)
                .putField("lineNumber", frame.line()).putField("bytecodeIndex", frame.bci())
                .putField("type", frameType));
    }
}
