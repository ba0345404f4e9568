package io.stackreq.model;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.openjdk.jmc.common.IMCFrame;
import org.openjdk.jmc.common.IMCMethod;
import org.openjdk.jmc.common.IMCStackTrace;
import org.openjdk.jmc.common.IMCThread;
import org.openjdk.jmc.common.item.IAccessorKey;
import org.openjdk.jmc.common.item.IItem;
import org.openjdk.jmc.common.item.IItemCollection;
import org.openjdk.jmc.common.item.IItemIterable;
import org.openjdk.jmc.common.item.IMemberAccessor;
import org.openjdk.jmc.common.item.IType;
import org.openjdk.jmc.common.item.ItemFilters;
import org.openjdk.jmc.common.unit.IQuantity;
import org.openjdk.jmc.common.unit.UnitLookup;
import org.openjdk.jmc.flightrecorder.CouldNotLoadRecordingException;
import org.openjdk.jmc.flightrecorder.JfrAttributes;
import org.openjdk.jmc.flightrecorder.JfrLoaderToolkit;
import org.openjdk.jmc.flightrecorder.parser.IParserExtension;
import org.openjdk.jmc.flightrecorder.parser.ParserExtensionRegistry;
import org.openjdk.jmc.flightrecorder.parser.filter.FilterExtension;
import org.openjdk.jmc.flightrecorder.parser.filter.OnLoadFilters;

/**
 * Reads {@code jdk.StackTraceRequest} and {@code stackreq.RequestStatistics} events with JMC core,
 * whichever chunk they are in: JMC resolves every chunk by its own metadata, so stackreq's
 * appended chunk and a JDK's native events read the same way.
 */
public final class RecordingReader {
    public static final String STACK_TRACE_REQUEST = "jdk.StackTraceRequest";
    public static final String REQUEST_STATISTICS = "stackreq.RequestStatistics";

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
        IItemCollection items = load(file, List.of(STACK_TRACE_REQUEST, REQUEST_STATISTICS));
        List<StackEvent> events = new ArrayList<>();
        Map<String, Long> statistics = new LinkedHashMap<>();
        try {
            for (IItemIterable iterable : items.apply(ItemFilters.type(STACK_TRACE_REQUEST))) {
                readStackEvents(iterable, events);
            }
            for (IItemIterable iterable : items.apply(ItemFilters.type(REQUEST_STATISTICS))) {
                readStatistics(iterable, statistics);
            }
        } catch (InputException e) {
            throw e;
        } catch (RuntimeException e) {
            // JMC resolves constants (class names, frame types) when they are first read: a corrupt
            // constant pool surfaces here, as a NullPointerException from JMC's accessors.
            throw new InputException("cannot read recording " + file + ": corrupt event data (" + describe(e) + ")", e);
        }
        if (events.isEmpty()) {
            throw new InputException(file + " has no " + STACK_TRACE_REQUEST
                    + " events (was the recording started with +jdk.StackTraceRequest#enabled=true and the agent "
                    + "loaded?)");
        }
        return new RecordingContents(file, events, statistics);
    }

    /**
     * Loads the events of {@code eventTypes} only, with JMC core.
     *
     * @throws InputException when the file is not a readable JFR recording
     */
    public static IItemCollection load(Path file, List<String> eventTypes) {
        RecordingStructure.check(file);
        // Filtering at load time keeps memory to the event types we use, whatever else the
        // recording holds (a default JFR recording has hundreds of thousands of other events).
        List<IParserExtension> extensions = new ArrayList<>(ParserExtensionRegistry.getParserExtensions());
        extensions.add(new FilterExtension(OnLoadFilters.includeEvents(eventTypes)));
        try {
            return JfrLoaderToolkit.loadEvents(List.of(file.toFile()), extensions);
        } catch (CouldNotLoadRecordingException e) {
            throw new InputException("cannot read recording " + file + ": " + describe(e), e);
        } catch (IOException | RuntimeException e) {
            // JMC throws unchecked exceptions on some corrupt input; all mean "not a readable recording".
            throw new InputException("cannot read recording " + file + ": " + describe(e), e);
        }
    }

    private static String describe(Exception e) {
        String message = e.getMessage();
        return message == null || message.isBlank() ? "not a valid JFR file"
                : message.lines().findFirst().orElse(message);
    }

    private static void readStackEvents(IItemIterable iterable, List<StackEvent> out) {
        IType<IItem> type = iterable.getType();
        IMemberAccessor<IQuantity, IItem> startTime = JfrAttributes.START_TIME.getAccessor(type);
        IMemberAccessor<IMCStackTrace, IItem> stackTrace = JfrAttributes.EVENT_STACKTRACE.getAccessor(type);
        IMemberAccessor<IMCThread, IItem> thread = JfrAttributes.EVENT_THREAD.getAccessor(type);
        IMemberAccessor<?, IItem> userData = accessor(type, "userData");
        IMemberAccessor<?, IItem> failed = accessor(type, "failed");
        IMemberAccessor<?, IItem> biased = accessor(type, "biased");
        if (userData == null) {
            throw new InputException(STACK_TRACE_REQUEST + " events in this recording have no userData field");
        }
        // JMC gives the events of one stack-trace constant the same IMCStackTrace: converting it
        // once keeps one frame list per distinct stack instead of one per event.
        Map<IMCStackTrace, List<Frame>> framesByTrace = new IdentityHashMap<>();
        for (IItem item : iterable) {
            IMCStackTrace trace = stackTrace == null ? null : stackTrace.getMember(item);
            IMCThread eventThread = thread == null ? null : thread.getMember(item);
            IQuantity time = startTime == null ? null : startTime.getMember(item);
            out.add(new StackEvent(
                    asLong(userData.getMember(item)),
                    time == null ? 0 : time.clampedLongValueIn(UnitLookup.EPOCH_NS),
                    eventThread == null ? null : eventThread.getThreadName(),
                    eventThread == null ? null : eventThread.getThreadId(),
                    trace == null ? List.of() : framesByTrace.computeIfAbsent(trace, t -> List.copyOf(frames(t))),
                    trace != null && trace.getTruncationState() != null && trace.getTruncationState().isTruncated(),
                    asBoolean(failed == null ? null : failed.getMember(item)),
                    asBoolean(biased == null ? null : biased.getMember(item))));
        }
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

    private static void readStatistics(IItemIterable iterable, Map<String, Long> out) {
        IType<IItem> type = iterable.getType();
        Map<String, IMemberAccessor<?, IItem>> numeric = new LinkedHashMap<>();
        for (IAccessorKey<?> key : type.getAccessorKeys().keySet()) {
            String name = key.getIdentifier();
            if (!name.equals("startTime") && !name.equals("duration") && !name.equals("endTime")) {
                numeric.put(name, type.getAccessor(key));
            }
        }
        for (IItem item : iterable) {
            for (Map.Entry<String, IMemberAccessor<?, IItem>> field : numeric.entrySet()) {
                Object value = field.getValue().getMember(item);
                if (value instanceof Number || value instanceof IQuantity) {
                    // The counters are cumulative: the largest value seen is the final one.
                    out.merge(field.getKey(), asLong(value), Math::max);
                }
            }
        }
    }

    /** The accessor of the field named {@code fieldName}, or null when the type has none. */
    public static IMemberAccessor<?, IItem> accessor(IType<IItem> type, String fieldName) {
        for (IAccessorKey<?> key : type.getAccessorKeys().keySet()) {
            if (key.getIdentifier().equals(fieldName)) {
                return type.getAccessor(key);
            }
        }
        return null;
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
