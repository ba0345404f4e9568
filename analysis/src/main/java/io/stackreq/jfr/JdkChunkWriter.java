package io.stackreq.jfr;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.stackreq.model.Frame;

/**
 * Writes one JFR chunk laid out as the JDK lays out its own, so that every reader that reads the
 * JDK's execution samples reads these: {@code jdk.ExecutionSample} with the JDK's fields in the
 * JDK's order (startTime, sampledThread, stackTrace, state), stack frames inline in their stack
 * trace with the JDK's frame types, symbols as UTF-8 inside the symbol pool, every type those
 * readers require declared, pool types without a supertype, and a {@code jdk.ActiveSetting}
 * per setting.
 *
 * <p>Why not JMC's {@code flightrecorder.writer}: it puts an event's fields in its own order,
 * frames in a constant pool of their own and symbols as references into the string pool. The
 * JDK's parser reads an event's first field as its start time; async-profiler's converter reads
 * execution samples, threads, classes, methods and stack traces by field position and frames
 * inline, and stops on a symbol that is not UTF-8; Grafana Pyroscope's parser skips frames given
 * by reference and rejects symbols given as string-pool references. Only a writer that follows
 * the JDK's layout is read alike by all of them.
 *
 * <p>The chunk starts at the channel's position when the writer is made; events stream to the
 * channel as they are written, the constant pools and the metadata follow at {@link #close()},
 * which then fills in the header. Ticks are nanoseconds since the epoch. Memory holds the pools
 * (distinct threads, stacks, methods), not the events.
 */
public final class JdkChunkWriter implements Closeable {
    public static final String EXECUTION_SAMPLE = "jdk.ExecutionSample";
    public static final String ACTIVE_SETTING = "jdk.ActiveSetting";
    static final String THREAD = "java.lang.Thread";
    static final String STACK_TRACE = "jdk.types.StackTrace";
    private static final String STRING = "java.lang.String";
    private static final String SYMBOL = "jdk.types.Symbol";
    private static final String FRAME_TYPE = "jdk.types.FrameType";
    private static final String THREAD_STATE = "jdk.types.ThreadState";
    private static final String METHOD = "jdk.types.Method";
    private static final String CLASS = "java.lang.Class";
    private static final String PACKAGE = "jdk.types.Package";
    private static final String MODULE = "jdk.types.Module";
    private static final String CLASS_LOADER = "jdk.types.ClassLoader";
    private static final String LABEL = "jdk.jfr.Label";
    private static final String DESCRIPTION = "jdk.jfr.Description";
    private static final String CATEGORY = "jdk.jfr.Category";
    private static final String TIMESTAMP = "jdk.jfr.Timestamp";
    private static final String TIMESPAN = "jdk.jfr.Timespan";
    /** The only state a thread has while it runs on a CPU: readers count such samples as CPU. */
    private static final String RUNNABLE = "STATE_RUNNABLE";
    private static final long RUNNABLE_ID = 1;
    /**
     * The JDK's frame types by their ids in its pools (async-profiler's converter takes an id as
     * its own frame type), and stackreq's "Java" (a Java frame whose kind the walk could not tell)
     * at 6, which the converter shows as a compiled Java frame, with its class: 4 and 5 are its C++
     * and kernel frames, shown without one.
     */
    private static final String UNDETERMINED_JAVA = "Java";
    private static final Map<String, Integer> FRAME_TYPES = Map.of("Interpreted", 0, "JIT compiled", 1, "Inlined", 2,
            "Native", 3, UNDETERMINED_JAVA, 6);
    private static final long TICKS_PER_SECOND = 1_000_000_000L;
    private static final int FLUSH_BYTES = 1 << 20;

    /** Every type the chunk declares, events last: those a reader of the JDK's samples requires. */
    private static final List<JfrType> VALUE_TYPES = List.of(
            JfrType.plain("boolean"), JfrType.plain("char"), JfrType.plain("float"), JfrType.plain("double"),
            JfrType.plain("byte"), JfrType.plain("short"), JfrType.plain("int"), JfrType.plain("long"),
            JfrType.plain(STRING),
            JfrType.annotation(LABEL, false), JfrType.annotation(DESCRIPTION, false),
            JfrType.annotation(CATEGORY, true), JfrType.annotation(TIMESTAMP, false),
            JfrType.annotation(TIMESPAN, false),
            JfrType.values(THREAD, "Thread").field("osName", STRING, "OS Thread Name")
                    .field("osThreadId", "long", "OS Thread Id").field("javaName", STRING, "Java Thread Name")
                    .field("javaThreadId", "long", "Java Thread Id").build(),
            JfrType.values(CLASS_LOADER, "Java Class Loader").pooled("type", CLASS, "Type")
                    .pooled("name", SYMBOL, "Name").build(),
            JfrType.values(MODULE, "Module").pooled("name", SYMBOL, "Name").pooled("version", SYMBOL, "Version")
                    .pooled("location", SYMBOL, "Location").pooled("classLoader", CLASS_LOADER, "Class Loader")
                    .build(),
            JfrType.values(PACKAGE, "Package").pooled("name", SYMBOL, "Name").pooled("module", MODULE, "Module")
                    .field("exported", "boolean", "Exported").build(),
            JfrType.values(CLASS, "Java Class").pooled("classLoader", CLASS_LOADER, "Class Loader")
                    .pooled("name", SYMBOL, "Name").pooled("package", PACKAGE, "Package")
                    .field("modifiers", "int", "Access Modifiers").field("hidden", "boolean", "Hidden").build(),
            JfrType.values(METHOD, "Java Method").pooled("type", CLASS, "Type").pooled("name", SYMBOL, "Name")
                    .pooled("descriptor", SYMBOL, "Descriptor").field("modifiers", "int", "Access Modifiers")
                    .field("hidden", "boolean", "Hidden").build(),
            JfrType.simple(SYMBOL, "Symbol", "string", "String"),
            JfrType.simple(FRAME_TYPE, "Frame type", "description", "Description"),
            JfrType.simple(THREAD_STATE, "Java Thread State", "name", "Name"),
            JfrType.values("jdk.types.StackFrame", null).pooled("method", METHOD, "Java Method")
                    .field("lineNumber", "int", "Line Number").field("bytecodeIndex", "int", "Bytecode Index")
                    .pooled("type", FRAME_TYPE, "Frame Type").build(),
            JfrType.values(STACK_TRACE, "Stacktrace").field("truncated", "boolean", "Truncated")
                    .field(new JfrType.Field("frames", "jdk.types.StackFrame", false, true, "Stack Frames", null,
                            false, null)).build());

    private static final JfrType EXECUTION_SAMPLE_TYPE = JfrType.event(EXECUTION_SAMPLE, "Method Profiling Sample",
            "Snapshot of a threads state", "Java Virtual Machine", "Profiling")
            .pooled("sampledThread", THREAD, "Thread").pooled("stackTrace", STACK_TRACE, "Stack Trace")
            .pooled("state", THREAD_STATE, "Thread State").build();
    private static final JfrType ACTIVE_SETTING_TYPE = JfrType.event(ACTIVE_SETTING, "Recording Setting", null,
            "Flight Recorder").timespan("duration", "TICKS", "Duration").pooled("eventThread", THREAD, "Event Thread")
            .pooled("stackTrace", STACK_TRACE, "Stack Trace").field("id", "long", "Event Id")
            .field("name", STRING, "Setting Name").field("value", STRING, "Setting Value").build();

    private record ThreadKey(String osName, long osThreadId, String javaName, long javaThreadId) {
    }

    private record StackKey(List<Frame> frames, boolean truncated) {
    }

    private record MethodKey(long classId, String name, String descriptor) {
    }

    private final SeekableByteChannel out;
    private final JfrType executionSampleType;
    private final JfrType activeSettingType;
    private final long chunkStart;
    private final long startNanos;
    private final long metadataId;
    private final Map<String, Long> typeIds = new LinkedHashMap<>();
    private final List<JfrType> types = new ArrayList<>(VALUE_TYPES);
    private final JfrOutput events = new JfrOutput(FLUSH_BYTES + (1 << 16));
    private final JfrOutput event = new JfrOutput(256);
    private final Map<ThreadKey, Long> threads = new LinkedHashMap<>();
    private final Map<StackKey, Long> stacks = new LinkedHashMap<>();
    private final Map<MethodKey, Long> methods = new LinkedHashMap<>();
    private final Map<String, Long> classes = new LinkedHashMap<>();
    private final Map<String, Long> packages = new LinkedHashMap<>();
    private final Map<String, Long> symbols = new LinkedHashMap<>();
    private final Map<Long, String[]> classNames = new HashMap<>();
    private long lastNanos;
    private boolean closed;

    /**
     * @param startEpochNanos the chunk's start: no event may be earlier (a nanosecond or more
     *                        earlier when a chunk of {@code context} starts at that time)
     * @param context         the recording the chunk goes beside, or {@link ChunkContext#alone()}
     * @param eventTypes      event types to declare besides {@code jdk.ExecutionSample} and
     *                        {@code jdk.ActiveSetting}
     */
    public JdkChunkWriter(SeekableByteChannel out, long startEpochNanos, ChunkContext context, List<JfrType> eventTypes)
            throws IOException {
        this.out = out;
        this.chunkStart = out.position();
        this.startNanos = context.startTime(startEpochNanos);
        this.lastNanos = startNanos;
        this.metadataId = context.metadataId(startNanos);
        // The samples keep the fields every reader reads by position, whatever a recording declares.
        JfrType sample = context.adopt(EXECUTION_SAMPLE_TYPE);
        executionSampleType = sample.fields().equals(EXECUTION_SAMPLE_TYPE.fields()) ? sample : EXECUTION_SAMPLE_TYPE;
        activeSettingType = context.adopt(ACTIVE_SETTING_TYPE);
        types.add(executionSampleType);
        types.add(activeSettingType);
        types.addAll(eventTypes);
        for (JfrType type : types) {
            if (typeIds.put(type.name(), context.idFor(type.name())) != null) {
                throw new IllegalArgumentException("type " + type.name() + " declared twice");
            }
        }
        writeFully(ByteBuffer.allocate(ChunkFile.HEADER_BYTES), chunkStart);
    }

    /** The chunk's start, nanoseconds since the epoch. */
    public long startEpochNanos() {
        return startNanos;
    }

    /** The declared type named {@code name}. */
    public JfrType type(String name) {
        for (JfrType type : types) {
            if (type.name().equals(name)) {
                return type;
            }
        }
        throw new IllegalArgumentException("no type " + name + " is declared");
    }

    /** The id of a thread in the chunk's thread pool. */
    public long thread(String osName, long osThreadId, String javaName, long javaThreadId) {
        return threads.computeIfAbsent(new ThreadKey(osName, osThreadId, javaName, javaThreadId),
                key -> (long) threads.size() + 1);
    }

    /** The id of a stack trace (top frame first) in the chunk's stack-trace pool. */
    public long stackTrace(List<Frame> frames, boolean truncated) {
        StackKey key = new StackKey(frames, truncated);
        Long id = stacks.get(key);
        if (id == null) {
            for (Frame frame : frames) {
                method(frame);
            }
            id = (long) stacks.size() + 1;
            stacks.put(key, id);
        }
        return id;
    }

    /** A {@code jdk.ExecutionSample} of a running thread. */
    public void executionSample(long epochNanos, long thread, long stackTrace) {
        event(executionSampleType, epochNanos, thread, stackTrace, RUNNABLE_ID);
    }

    /** A {@code jdk.ActiveSetting}: the setting {@code name} of {@code eventType} has {@code value}. */
    public void activeSetting(long epochNanos, String eventType, String name, String value) {
        Object[] values = new Object[activeSettingType.fields().size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = switch (activeSettingType.fields().get(i).name()) {
                case "startTime" -> epochNanos;
                case "id" -> typeIds.get(type(eventType).name());
                case "name" -> name;
                case "value" -> value;
                default -> 0L; // duration, eventThread, stackTrace: none
            };
        }
        event(activeSettingType, values);
    }

    /**
     * An event of a declared type, its values in field order, the start time (epoch nanoseconds)
     * first: a Long for long fields and pool references (from {@link #thread}, {@link #stackTrace};
     * 0 for none), Integer, Boolean, Double, or String.
     *
     * @throws UncheckedIOException when the events written so far cannot be written to the channel
     */
    public void event(JfrType type, Object... values) {
        if (closed || !types.contains(type) || !type.isEvent()) {
            throw new IllegalStateException("cannot write a " + type.name() + " event here");
        }
        if (values.length != type.fields().size()) {
            throw new IllegalArgumentException(type.name() + " has " + type.fields().size() + " fields, not "
                    + values.length);
        }
        long time = (Long) values[0];
        if (time < startNanos) {
            throw new IllegalArgumentException("an event at " + time + " before the chunk's start " + startNanos);
        }
        lastNanos = Math.max(lastNanos, time);
        event.clear();
        event.putLong(typeIds.get(type.name()));
        for (int i = 0; i < values.length; i++) {
            putValue(event, type.fields().get(i), values[i]);
        }
        events.putSized(event);
        if (events.size() >= FLUSH_BYTES) {
            try {
                flushEvents();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static void putValue(JfrOutput to, JfrType.Field field, Object value) {
        if (field.constantPool() || field.typeName().equals("long")) {
            to.putLong((Long) value);
            return;
        }
        switch (field.typeName()) {
            case "int" -> to.putInt((Integer) value);
            case "boolean" -> to.putBoolean((Boolean) value);
            case "double" -> to.putDouble((Double) value);
            case STRING -> to.putString((String) value);
            default -> throw new IllegalArgumentException("field " + field.name() + " of type " + field.typeName()
                    + " is not one an event of this writer holds");
        }
    }

    private long method(Frame frame) {
        long classId = classes.computeIfAbsent(frame.className() + (frame.isNativeCode() ? "\0native" : ""), key -> {
            long id = classes.size() + 1;
            // The JDK's internal form (java/lang/String); native code's class is its library's file name.
            String name = frame.isNativeCode() ? frame.className() : frame.className().replace('.', '/');
            int slash = name.lastIndexOf('/');
            String packageName = frame.isNativeCode() || slash < 0 ? null : name.substring(0, slash);
            classNames.put(id, new String[] {name, packageName});
            symbol(name);
            if (packageName != null) {
                packages.computeIfAbsent(packageName, p -> (long) packages.size() + 1);
                symbol(packageName);
            }
            return id;
        });
        return methods.computeIfAbsent(new MethodKey(classId, frame.methodName(), frame.descriptor()), key -> {
            symbol(key.name());
            symbol(key.descriptor());
            return (long) methods.size() + 1;
        });
    }

    private long symbol(String text) {
        return symbols.computeIfAbsent(text, key -> (long) symbols.size() + 1);
    }

    /** A frame's type id; a type the JDK does not have (none recorded) is a Java frame of undetermined kind. */
    private static int frameType(Frame frame) {
        return FRAME_TYPES.getOrDefault(frame.type(), FRAME_TYPES.get(UNDETERMINED_JAVA));
    }

    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        flushEvents();
        long checkpointOffset = out.position() - chunkStart;
        JfrOutput checkpoint = new JfrOutput(1 << 16);
        checkpoint.putLong(1).putLong(startNanos).putLong(0).putLong(0).putByte(0);
        writePools(checkpoint);
        writeRecord(checkpoint);
        long metadataOffset = out.position() - chunkStart;
        writeRecord(new MetadataWriter(types, typeIds).event(startNanos, metadataId));
        long size = out.position() - chunkStart;
        JfrOutput header = new JfrOutput(ChunkFile.HEADER_BYTES);
        header.putFixedLong((long) ChunkFile.MAGIC << 32 | 2L << 16).putFixedLong(size).putFixedLong(checkpointOffset)
                .putFixedLong(metadataOffset).putFixedLong(startNanos).putFixedLong(Math.max(1, lastNanos - startNanos))
                .putFixedLong(startNanos).putFixedLong(TICKS_PER_SECOND);
        header.putByte(0).putByte(0).putByte(0).putByte(ChunkFile.COMPRESSED_INTEGERS);
        writeFully(header.asBuffer(), chunkStart);
        out.position(chunkStart + size);
    }

    private void writePools(JfrOutput to) {
        JfrOutput body = new JfrOutput(1 << 16);
        int[] count = {0};
        pool(body, count, FRAME_TYPE, FRAME_TYPES.size(),
                () -> FRAME_TYPES.forEach((description, id) -> body.putLong(id).putString(description)));
        pool(body, count, THREAD_STATE, 1, () -> body.putLong(RUNNABLE_ID).putString(RUNNABLE));
        pool(body, count, THREAD, threads.size(), () -> threads.forEach((thread, id) -> body.putLong(id)
                .putString(thread.osName()).putLong(thread.osThreadId()).putString(thread.javaName())
                .putLong(thread.javaThreadId())));
        pool(body, count, SYMBOL, symbols.size(), () -> symbols.forEach((text, id) -> {
            // Always UTF-8, the empty symbol too: readers of symbols take no other encoding.
            byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
            body.putLong(id).putByte(3).putInt(utf8.length).putBytes(utf8, 0, utf8.length);
        }));
        pool(body, count, PACKAGE, packages.size(), () -> packages.forEach((name, id) -> body.putLong(id)
                .putLong(symbols.get(name)).putLong(0).putBoolean(true)));
        pool(body, count, CLASS, classes.size(), () -> classes.forEach((key, id) -> {
            String[] names = classNames.get(id);
            body.putLong(id).putLong(0).putLong(symbols.get(names[0]))
                    .putLong(names[1] == null ? 0 : packages.get(names[1])).putInt(0).putBoolean(false);
        }));
        pool(body, count, METHOD, methods.size(), () -> methods.forEach((method, id) -> body.putLong(id)
                .putLong(method.classId()).putLong(symbols.get(method.name())).putLong(symbols.get(method.descriptor()))
                .putInt(0).putBoolean(false)));
        pool(body, count, STACK_TRACE, stacks.size(), () -> stacks.forEach((stack, id) -> {
            body.putLong(id).putBoolean(stack.truncated()).putInt(stack.frames().size());
            for (Frame frame : stack.frames()) {
                body.putLong(method(frame)).putInt(frame.lineNumber()).putInt(frame.bytecodeIndex())
                        .putLong(frameType(frame));
            }
        }));
        to.putInt(count[0]).putBytes(body);
    }

    /** One pool: its type, its count and its entries; an empty pool is left out (the JDK's parser rejects one). */
    private void pool(JfrOutput body, int[] count, String type, int entries, Runnable writeEntries) {
        if (entries == 0) {
            return;
        }
        body.putLong(typeIds.get(type)).putInt(entries);
        writeEntries.run();
        count[0]++;
    }

    private void writeRecord(JfrOutput body) throws IOException {
        JfrOutput record = new JfrOutput(body.size() + 5);
        record.putSized(body);
        writeFully(record.asBuffer(), out.position());
    }

    private void flushEvents() throws IOException {
        writeFully(events.asBuffer(), out.position());
        events.clear();
    }

    private void writeFully(ByteBuffer bytes, long position) throws IOException {
        out.position(position);
        while (bytes.hasRemaining()) {
            out.write(bytes);
        }
    }
}
