package io.stackreq.model;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;

import org.openjdk.jmc.common.IMCFrame;
import org.openjdk.jmc.common.IMCMethod;
import org.openjdk.jmc.common.IMCStackTrace;
import org.openjdk.jmc.common.IMCThread;
import org.openjdk.jmc.common.item.IAttribute;
import org.openjdk.jmc.common.unit.IQuantity;
import org.openjdk.jmc.common.unit.UnitLookup;
import org.openjdk.jmc.flightrecorder.CouldNotLoadRecordingException;
import org.openjdk.jmc.flightrecorder.JfrAttributes;
import org.openjdk.jmc.flightrecorder.JfrLoaderToolkit;
import org.openjdk.jmc.flightrecorder.parser.IEventSink;
import org.openjdk.jmc.flightrecorder.parser.IEventSinkFactory;
import org.openjdk.jmc.flightrecorder.parser.IParserExtension;
import org.openjdk.jmc.flightrecorder.parser.ParserExtensionRegistry;
import org.openjdk.jmc.flightrecorder.parser.ValueField;

/**
 * Reads {@code jdk.StackTraceRequest} and {@code stackreq.RequestStatistics} events with JMC core,
 * whichever chunk they are in: JMC resolves every chunk by its own metadata, so stackreq's
 * appended chunk and a JDK's native events read the same way. The events stream from JMC's
 * parser into compact columns ({@link RecordingContents}); JMC keeps none of them.
 */
public final class RecordingReader {
    public static final String STACK_TRACE_REQUEST = "jdk.StackTraceRequest";
    public static final String REQUEST_STATISTICS = "stackreq.RequestStatistics";
    /**
     * The string field naming the library that called RequestStackTrace (its file name), so that
     * the events of several profilers in one JVM can be told apart; absent in older recordings
     * and in the JDK's own event.
     */
    public static final String REQUESTER = "requester";
    private static final String SINGLE_THREADED_PARSER = "org.openjdk.jmc.flightrecorder.parser.singlethreaded";
    private static final Set<String> TIME_FIELDS = Set.of("startTime", "duration", "endTime");

    private RecordingReader() {
    }

    /**
     * @throws InputException when the file is missing, is not a JFR recording, or holds no
     *                        {@code jdk.StackTraceRequest} event
     */
    public static RecordingContents read(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new InputException("recording not found: " + file);
        }
        RecordingContents.Builder events = new RecordingContents.Builder(file);
        Map<String, Long> statistics = new LinkedHashMap<>();
        stream(file, Map.of(STACK_TRACE_REQUEST, fields -> stackEvents(fields, events),
                REQUEST_STATISTICS, fields -> statistics(fields, statistics)));
        if (events.size() == 0) {
            throw new InputException(file + " has no " + STACK_TRACE_REQUEST
                    + " events (was the recording started with +jdk.StackTraceRequest#enabled=true, or"
                    + " settings=default,settings=stackreq.jfc, and the agent loaded?)");
        }
        return events.build(statistics);
    }

    /** Receives the events of one type as JMC core parses them, one at a time. */
    @FunctionalInterface
    public interface EventReceiver {
        /**
         * Called for every chunk that declares the type, before its events.
         *
         * @param fields the type's fields in this chunk, in the order of an event's values
         * @return what receives each event's values, in file order
         */
        Consumer<Object[]> chunk(List<ValueField> fields);
    }

    /**
     * Passes the events of the types in {@code receivers} to them as JMC core parses the file,
     * and keeps no event: memory holds one chunk, not the recording.
     *
     * @throws InputException when the file is not a readable JFR recording, or its event data is
     *                        corrupt, or a receiver threw it
     */
    public static void stream(Path file, Map<String, EventReceiver> receivers) {
        stream(file, receivers::get);
    }

    /**
     * As {@link #stream(Path, Map)}, with the receiver of each type the file declares asked of
     * {@code receivers} (null: the type's events are skipped): for readers that learn which types
     * a file holds as they read it.
     */
    public static void stream(Path file, Function<String, EventReceiver> receivers) {
        RecordingStructure.check(file);
        // One chunk at a time, in file order: the events then arrive in file order, and only one
        // chunk's bytes are in memory (JMC core reads a chunk whole).
        System.setProperty(SINGLE_THREADED_PARSER, "true");
        AtomicReference<RuntimeException> failure = new AtomicReference<>();
        List<IParserExtension> extensions = new ArrayList<>(ParserExtensionRegistry.getParserExtensions());
        // Last in the list is innermost: the receivers see the values JMC would have kept.
        extensions.add(new IParserExtension() {
            @Override
            public IEventSinkFactory getEventSinkFactory(IEventSinkFactory next) {
                return new IEventSinkFactory() {
                    @Override
                    public IEventSink create(String identifier, String label, String[] category, String description,
                            List<ValueField> fields) {
                        EventReceiver receiver = receivers.apply(identifier);
                        if (receiver == null || failure.get() != null) {
                            return values -> {
                            };
                        }
                        Consumer<Object[]> events;
                        try {
                            events = receiver.chunk(fields);
                        } catch (RuntimeException e) {
                            failure.compareAndSet(null, e);
                            return values -> {
                            };
                        }
                        return values -> {
                            if (failure.get() != null) {
                                return;
                            }
                            try {
                                events.accept(values);
                            } catch (RuntimeException e) {
                                failure.compareAndSet(null, e);
                            }
                        };
                    }

                    @Override
                    public void flush() {
                        next.flush();
                    }
                };
            }
        });
        try {
            JfrLoaderToolkit.loadEvents(List.of(file.toFile()), extensions);
        } catch (CouldNotLoadRecordingException e) {
            throw new InputException("cannot read recording " + file + ": " + describe(e), e);
        } catch (IOException | RuntimeException e) {
            // JMC throws unchecked exceptions on some corrupt input; all mean "not a readable recording".
            throw new InputException("cannot read recording " + file + ": " + describe(e), e);
        }
        RuntimeException problem = failure.get();
        if (problem instanceof InputException input) {
            throw input;
        }
        if (problem != null) {
            // JMC resolves constants (class names, frame types) when they are first read: a corrupt
            // constant pool surfaces here, as a NullPointerException from JMC's values.
            throw new InputException("cannot read recording " + file + ": corrupt event data (" + describe(problem)
                    + ")", problem);
        }
    }

    private static String describe(Exception e) {
        String message = e.getMessage();
        return message == null || message.isBlank() ? "not a valid JFR file"
                : message.lines().findFirst().orElse(message);
    }

    private static Consumer<Object[]> stackEvents(List<ValueField> fields, RecordingContents.Builder out) {
        int userData = fieldIndex(fields, "userData");
        if (userData < 0) {
            throw new InputException(STACK_TRACE_REQUEST + " events in this recording have no userData field");
        }
        int startTime = fieldIndex(fields, JfrAttributes.START_TIME);
        int stackTrace = fieldIndex(fields, JfrAttributes.EVENT_STACKTRACE);
        int thread = fieldIndex(fields, JfrAttributes.EVENT_THREAD);
        int failed = fieldIndex(fields, "failed");
        int biased = fieldIndex(fields, "biased");
        int requester = fieldIndex(fields, REQUESTER);
        // JMC gives the events of one stack-trace constant the same IMCStackTrace: converting it
        // once keeps one frame list per distinct stack, and spares converting it for every event.
        Map<IMCStackTrace, Integer> stackIds = new IdentityHashMap<>();
        int noStack = out.stackId(List.of());
        return values -> {
            IMCStackTrace trace = (IMCStackTrace) value(values, stackTrace);
            IMCThread eventThread = (IMCThread) value(values, thread);
            IQuantity time = (IQuantity) value(values, startTime);
            RecordingContents.Shape shape = new RecordingContents.Shape(
                    trace == null ? noStack : stackIds.computeIfAbsent(trace, t -> out.stackId(frames(t))),
                    eventThread == null ? null : eventThread.getThreadName(),
                    eventThread == null ? null : eventThread.getThreadId(),
                    trace != null && trace.getTruncationState() != null && trace.getTruncationState().isTruncated(),
                    asBoolean(value(values, failed)),
                    asBoolean(value(values, biased)));
            // Absent (an older recording, the JDK's own event) and empty (unknown) alike: named by none.
            Object requestedBy = value(values, requester);
            out.add(asLong(values[userData]), time == null ? 0 : time.clampedLongValueIn(UnitLookup.EPOCH_NS),
                    requestedBy instanceof String name ? name : "", shape);
        };
    }

    /** The frames of a stack trace JMC read, top frame first. */
    public static List<Frame> frames(IMCStackTrace trace) {
        List<? extends IMCFrame> source = trace.getFrames();
        List<Frame> frames = new ArrayList<>(source.size());
        for (IMCFrame frame : source) {
            IMCMethod method = frame.getMethod();
            String className = method == null || method.getType() == null ? ""
                    : nonNull(method.getType().getFullName());
            String methodName = method == null ? "<unknown>" : nonNull(method.getMethodName());
            frames.add(new Frame(className, methodName, method == null ? "" : method.getFormalDescriptor(),
                    frame.getFrameLineNumber() == null ? -1 : frame.getFrameLineNumber(),
                    frame.getBCI() == null ? -1 : frame.getBCI(),
                    frameType(frame.getType())));
        }
        return frames;
    }

    private static final Map<IMCFrame.Type, String> JDK_FRAME_TYPES = Map.of(
            IMCFrame.Type.JIT_COMPILED, "JIT compiled",
            IMCFrame.Type.INTERPRETED, "Interpreted",
            IMCFrame.Type.INLINED, "Inlined",
            IMCFrame.Type.NATIVE, "Native",
            IMCFrame.Type.CPP, "C++",
            IMCFrame.Type.KERNEL, "Kernel");

    /**
     * The frame type as the JDK spells it: JMC maps the recorded description to its own constants
     * (whose names differ, "JIT Compiled"), and keeps other descriptions (stackreq's "Java") as read.
     */
    private static String frameType(IMCFrame.Type type) {
        if (type == null) {
            return "";
        }
        return JDK_FRAME_TYPES.getOrDefault(type, type.getName());
    }

    private static Consumer<Object[]> statistics(List<ValueField> fields, Map<String, Long> out) {
        return values -> {
            for (int i = 0; i < fields.size(); i++) {
                String name = fields.get(i).getIdentifier();
                Object value = values[i];
                if (!TIME_FIELDS.contains(name) && (value instanceof Number || value instanceof IQuantity)) {
                    // The counters are cumulative: the largest value seen is the final one.
                    out.merge(name, asLong(value), Math::max);
                }
            }
        };
    }

    /** The index of the field named {@code identifier}, or -1 when the type has none. */
    public static int fieldIndex(List<ValueField> fields, String identifier) {
        for (int i = 0; i < fields.size(); i++) {
            if (fields.get(i).getIdentifier().equals(identifier)) {
                return i;
            }
        }
        return -1;
    }

    /** The index of the field JMC reads as {@code attribute}, or -1 when the type has none. */
    public static int fieldIndex(List<ValueField> fields, IAttribute<?> attribute) {
        for (int i = 0; i < fields.size(); i++) {
            if (fields.get(i).matches(attribute)) {
                return i;
            }
        }
        return -1;
    }

    private static Object value(Object[] values, int field) {
        return field < 0 ? null : values[field];
    }

    private static long asLong(Object value) {
        if (value instanceof IQuantity quantity) {
            return quantity.longValue();
        }
        if (value instanceof Number number) {
            return number.longValue();
        }
        throw new InputException("unexpected value in a " + STACK_TRACE_REQUEST + " event: " + value);
    }

    private static boolean asBoolean(Object value) {
        return value instanceof Boolean flag && flag;
    }

    private static String nonNull(String text) {
        return text == null ? "" : text;
    }
}
