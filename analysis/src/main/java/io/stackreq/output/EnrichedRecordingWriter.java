package io.stackreq.output;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.openjdk.jmc.flightrecorder.writer.api.Recording;
import org.openjdk.jmc.flightrecorder.writer.api.Recordings;
import org.openjdk.jmc.flightrecorder.writer.api.Type;
import org.openjdk.jmc.flightrecorder.writer.api.TypedFieldBuilder;
import org.openjdk.jmc.flightrecorder.writer.api.TypedValue;
import org.openjdk.jmc.flightrecorder.writer.api.Types;

import io.stackreq.join.JoinListener;
import io.stackreq.join.JoinedSample;
import io.stackreq.model.Frame;
import io.stackreq.model.Sample;
import io.stackreq.model.SampleFileHeader;
import io.stackreq.model.StackEvent;

/**
 * {@code enrich}: a recording with one {@value #EVENT_NAME} event per matched sample, carrying the
 * sample's stack trace, thread and time and every counter delta of its group as a field, so JMC's
 * flame graph and stack-trace views can weigh stacks by any counter.
 *
 * <p>JMC core 9.1.1's writer corrupts an event when a field is left unset (JMC-8475, fixed after
 * 9.1.1), so every field of every value written here is set. The writer buffers the whole
 * recording until {@link #close()}.
 *
 * <p>Both JMC core and the JDK's own parser ({@code jfr print}, {@code RecordingFile}) read the
 * file, stacks included. The JDK types are declared here, not by the writer's JDK type
 * initialization: that one puts {@code jdk.types.StackFrame} in a constant pool, and the JDK's
 * parser takes the elements of a stack trace's frame array for inline frames (it fails with a
 * ClassCastException in {@code RecordedStackTrace.getFrames}), as the JDK writes them.
 */
public final class EnrichedRecordingWriter implements JoinListener, AutoCloseable {
    public static final String EVENT_NAME = "stackreq.PerfSample";
    /** Every field of an event besides the counters: each counter's field is named by {@link #fieldName}. */
    public static final Set<String> FIXED_FIELDS =
            Set.of("startTime", "eventThread", "stackTrace", "userData", "tid", "cpu", "leader", "biased");

    private final Recording recording;
    private final Type eventType;
    private final Type stackTraceType;
    private final Type frameType;
    private final Type methodType;
    private final Type classType;
    private final Type packageType;
    private final Type threadType;
    private final Type frameTypeType;
    private final TypedValue moduleNull;
    private final Map<String, CounterField> counters = new LinkedHashMap<>();
    private final Map<Frame, TypedValue> frameValues = new HashMap<>();
    private final Map<String, TypedValue> classValues = new HashMap<>();
    private final Map<String, TypedValue> threadValues = new HashMap<>();
    private long written;

    /** How one counter is stored: JMC weighs by a field only when it reads it as a quantity. */
    private record CounterField(String fieldName, boolean nanoseconds) {
    }

    /**
     * @param firstEventEpochNanos time of the earliest event: the recording's start
     * @param durationNanos        from the earliest to the latest event
     */
    public EnrichedRecordingWriter(Path file, SampleFileHeader header, long firstEventEpochNanos, long durationNanos)
            throws IOException {
        // One tick = 1 ns and tick 0 = the epoch: startTime values are then plain epoch nanoseconds.
        recording = Recordings.newRecording(OutputFiles.newOutputStream(file),
                settings -> settings.withTimestamp(firstEventEpochNanos).withStartTicks(firstEventEpochNanos)
                .withDuration(Math.max(1, durationNanos)));
        Types types = recording.getTypes();
        for (Types.JDK annotation : List.of(Types.JDK.ANNOTATION_LABEL, Types.JDK.ANNOTATION_DESCRIPTION,
                Types.JDK.ANNOTATION_TIMESTAMP, Types.JDK.ANNOTATION_TIMESPAN)) {
            types.getOrAdd(annotation, "java.lang.annotation.Annotation",
                    type -> type.addField("value", Types.Builtin.STRING));
        }
        threadType = types.getOrAdd(Types.JDK.THREAD, type -> type.addField("osName", Types.Builtin.STRING)
                .addField("osThreadId", Types.Builtin.LONG).addField("javaName", Types.Builtin.STRING)
                .addField("javaThreadId", Types.Builtin.LONG));
        // JMC reads a package only with the JDK's fields (a type of one field is taken for its value).
        Type moduleType = types.getOrAdd(Types.JDK.MODULE, type -> type.addField("name", Types.Builtin.STRING)
                .addField("version", Types.Builtin.STRING).addField("location", Types.Builtin.STRING));
        packageType = types.getOrAdd(Types.JDK.PACKAGE, type -> type.addField("name", Types.Builtin.STRING)
                .addField("module", moduleType).addField("exported", Types.Builtin.BOOLEAN));
        moduleNull = moduleType.nullValue();
        classType = types.getOrAdd(Types.JDK.CLASS, type -> type.addField("name", Types.Builtin.STRING)
                .addField("package", packageType).addField("modifiers", Types.Builtin.INT)
                .addField("hidden", Types.Builtin.BOOLEAN));
        methodType = types.getOrAdd(Types.JDK.METHOD, type -> type.addField("type", classType)
                .addField("name", Types.Builtin.STRING).addField("descriptor", Types.Builtin.STRING)
                .addField("modifiers", Types.Builtin.INT).addField("hidden", Types.Builtin.BOOLEAN));
        frameTypeType = types.getOrAdd(Types.JDK.FRAME_TYPE,
                type -> type.addField("description", Types.Builtin.STRING));
        // Without a constant pool: frames are written inline in their stack trace.
        frameType = types.getOrAdd(Types.JDK.STACK_FRAME.getTypeName(), null, false, type -> type
                .addField("method", methodType).addField("lineNumber", Types.Builtin.INT)
                .addField("bytecodeIndex", Types.Builtin.INT).addField("type", frameTypeType));
        stackTraceType = types.getOrAdd(Types.JDK.STACK_TRACE, type -> type
                .addField("truncated", Types.Builtin.BOOLEAN)
                .addField("frames", frameType, TypedFieldBuilder::asArray));
        for (String counter : header.valueEvents()) {
            boolean time = counter.equals("task-clock") || counter.equals("cpu-clock") || counter.equals("cpu-timer")
                    || (counter.equals(header.leader()) && header.isTimeBased());
            counters.put(counter, new CounterField(fieldName(counter), time));
        }
        // Registered as a plain type with jdk.jfr.Event as supertype, not with registerEventType:
        // that puts stackTrace and eventThread before startTime, and the JDK's own parser (jfr
        // print, RecordingFile) reads the first field of every event as its start time.
        eventType = recording.registerType(EVENT_NAME, "jdk.jfr.Event", type -> {
            type.addField("startTime", Types.Builtin.LONG,
                    f -> f.addAnnotation(Types.JDK.ANNOTATION_TIMESTAMP, "TICKS"))
                    .addField("eventThread", threadType)
                    .addField("stackTrace", stackTraceType)
                    .addAnnotation(Types.JDK.ANNOTATION_LABEL, "Perf Sample")
                    .addAnnotation(Types.JDK.ANNOTATION_DESCRIPTION,
                            "A perf counter overflow joined by stackreq with its unbiased stack trace")
                    .addField("userData", Types.Builtin.LONG,
                            f -> f.addAnnotation(Types.JDK.ANNOTATION_LABEL, "User Data"))
                    .addField("tid", Types.Builtin.LONG,
                            f -> f.addAnnotation(Types.JDK.ANNOTATION_LABEL, "OS Thread Id"))
                    .addField("cpu", Types.Builtin.INT, f -> f.addAnnotation(Types.JDK.ANNOTATION_LABEL, "CPU"))
                    .addField("leader", Types.Builtin.STRING,
                            f -> f.addAnnotation(Types.JDK.ANNOTATION_LABEL, "Sampled Event"))
                    .addField("biased", Types.Builtin.BOOLEAN,
                            f -> f.addAnnotation(Types.JDK.ANNOTATION_LABEL, "Biased"));
            for (Map.Entry<String, CounterField> counter : counters.entrySet()) {
                if (counter.getValue().nanoseconds()) {
                    type.addField(counter.getValue().fieldName(), Types.Builtin.LONG,
                            f -> f.addAnnotation(Types.JDK.ANNOTATION_LABEL, counter.getKey())
                                    .addAnnotation(Types.JDK.ANNOTATION_TIMESPAN, "NANOSECONDS"));
                } else {
                    // JMC reads an unannotated long as a raw number, which it cannot weigh by;
                    // a double is a quantity to JMC and holds counts exactly up to 2^53.
                    type.addField(counter.getValue().fieldName(), Types.Builtin.DOUBLE,
                            f -> f.addAnnotation(Types.JDK.ANNOTATION_LABEL, counter.getKey()));
                }
            }
        });
    }

    /** The field name for a perf event name: {@code page-faults} becomes {@code pageFaults}. */
    public static String fieldName(String counter) {
        StringBuilder name = new StringBuilder();
        boolean upper = false;
        for (char c : counter.toCharArray()) {
            if (Character.isLetterOrDigit(c)) {
                name.append(upper ? Character.toUpperCase(c) : name.length() == 0 ? Character.toLowerCase(c) : c);
                upper = false;
            } else {
                upper = name.length() > 0;
            }
        }
        if (name.length() == 0 || !Character.isJavaIdentifierStart(name.charAt(0))) {
            name.insert(0, "counter_");
        }
        return name.toString();
    }

    @Override
    public void accept(JoinedSample joined) {
        if (!joined.matched() || joined.sample() == null) {
            return;
        }
        Sample sample = joined.sample();
        StackEvent event = joined.event();
        TypedValue stackTrace = stackTrace(event);
        TypedValue thread = thread(event.threadName(), sample.tid(), event.javaThreadId());
        recording.writeEvent(eventType.asValue(value -> {
            value.putField("startTime", event.startEpochNanos())
                    .putField("eventThread", thread)
                    .putField("stackTrace", stackTrace)
                    .putField("userData", sample.userData())
                    .putField("tid", sample.tid())
                    .putField("cpu", sample.cpu())
                    .putField("leader", sample.event())
                    .putField("biased", event.biased());
            for (Map.Entry<String, CounterField> counter : counters.entrySet()) {
                long delta = delta(sample, counter.getKey());
                if (counter.getValue().nanoseconds()) {
                    value.putField(counter.getValue().fieldName(), delta);
                } else {
                    value.putField(counter.getValue().fieldName(), (double) delta);
                }
            }
        }));
        written++;
    }

    /** Events written so far. */
    public long written() {
        return written;
    }

    @Override
    public void close() throws IOException {
        recording.close();
    }

    private static long delta(Sample sample, String counter) {
        Long delta = sample.deltas().get(counter);
        if (delta != null) {
            return delta;
        }
        return counter.equals(sample.event()) ? sample.period() : 0;
    }

    private TypedValue stackTrace(StackEvent event) {
        List<TypedValue> frames = new ArrayList<>(event.frames().size());
        for (Frame frame : event.frames()) {
            frames.add(frameValues.computeIfAbsent(frame, this::frame));
        }
        TypedValue[] frameArray = frames.toArray(new TypedValue[0]);
        return stackTraceType.asValue(value -> value.putField("truncated", event.truncated())
                .putField("frames", frameArray));
    }

    private TypedValue frame(Frame frame) {
        TypedValue method = methodType.asValue(value -> value
                .putField("type", classValues.computeIfAbsent(frame.className(),
                        name -> frame.isNativeCode() ? libraryClass(name) : javaClass(name)))
                .putField("name", frame.methodName())
                .putField("descriptor", frame.descriptor())
                .putField("modifiers", 0)
                .putField("hidden", false));
        TypedValue type = frameTypeType.asValue(value -> value.putField("description", frame.type()));
        return frameType.asValue(value -> value.putField("method", method)
                .putField("lineNumber", frame.lineNumber())
                .putField("bytecodeIndex", frame.bytecodeIndex())
                .putField("type", type));
    }

    /** Class and package names in JFR's internal form ({@code java/lang/String}), as the JDK writes them. */
    private TypedValue javaClass(String className) {
        int lastDot = className.lastIndexOf('.');
        String packageName = lastDot < 0 ? "" : className.substring(0, lastDot).replace('.', '/');
        TypedValue javaPackage = packageType.asValue(value -> value.putField("name", packageName)
                .putField("module", moduleNull).putField("exported", true));
        return classType.asValue(value -> value
                .putField("name", className.replace('.', '/'))
                .putField("package", javaPackage)
                .putField("modifiers", 0)
                .putField("hidden", false));
    }

    /** The class of native code frames: the library's file name as it is, in no package. */
    private TypedValue libraryClass(String library) {
        TypedValue noPackage = packageType.asValue(value -> value.putField("name", "")
                .putField("module", moduleNull).putField("exported", true));
        return classType.asValue(value -> value.putField("name", library).putField("package", noPackage)
                .putField("modifiers", 0).putField("hidden", false));
    }

    /**
     * @param javaThreadId the Java thread id, or null when the recording has none (written as -1); 0 for
     *                     a thread JVMTI does not show (the JVM's own, a native one), which has no Java
     *                     name, as JFR writes them
     */
    private TypedValue thread(String name, long tid, Long javaThreadId) {
        String threadName = name == null ? "tid " + tid : name;
        long javaId = javaThreadId == null ? -1 : javaThreadId;
        return threadValues.computeIfAbsent(threadName + '\0' + tid + '\0' + javaId, key -> threadType.asValue(
                value -> value.putField("osName", threadName)
                        .putField("osThreadId", tid)
                        .putField("javaName", javaId == 0 ? null : threadName)
                        .putField("javaThreadId", javaId)));
    }
}
