package io.stackreq.jfr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmc.common.IMCFrame;
import org.openjdk.jmc.common.IMCStackTrace;
import org.openjdk.jmc.common.IMCThread;
import org.openjdk.jmc.common.item.IItem;
import org.openjdk.jmc.common.item.IItemCollection;
import org.openjdk.jmc.common.item.IItemIterable;
import org.openjdk.jmc.common.item.IMemberAccessor;
import org.openjdk.jmc.common.item.ItemFilters;
import org.openjdk.jmc.common.util.LabeledIdentifier;
import org.openjdk.jmc.flightrecorder.JfrAttributes;
import org.openjdk.jmc.flightrecorder.JfrLoaderToolkit;
import org.openjdk.jmc.flightrecorder.jdk.JdkAttributes;
import org.openjdk.jmc.flightrecorder.jdk.JdkFilters;

import io.stackreq.model.Frame;
import jdk.jfr.EventType;
import jdk.jfr.ValueDescriptor;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import one.convert.Arguments;
import one.convert.JfrToFlame;
import one.jfr.JfrReader;
import one.jfr.StackTrace;
import one.jfr.event.ExecutionSample;

/**
 * A chunk of {@link JdkChunkWriter}'s, read back by the three readers it is written for: the JDK's
 * parser, JMC core, and async-profiler's converter (4.2, unmodified), each finding every sample
 * once with its stack, thread, frame types and the period setting; and its layout checked against
 * the JDK's (field order, inline frames, UTF-8 symbols, every type Pyroscope requires).
 */
class JdkChunkWriterTest {
    private static final long START = 1_700_000_000_000_000_000L;
    private static final long MILLISECOND = 1_000_000;
    private static final List<Frame> JAVA_STACK = List.of(
            new Frame("app.Hasher", "hash", "(I)I", 10, 3, "JIT compiled"),
            new Frame("app.Hasher", "mix", "(I)I", 20, 7, "Inlined"),
            new Frame("app.Main", "run", "()V", 30, 0, "Interpreted"),
            new Frame("app.Main", "main", "([Ljava/lang/String;)V", 40, 12, "Java"));
    private static final List<Frame> NATIVE_STACK = List.of(
            new Frame("libc.so.6", "memcpy", "", -1, -1, "Native"),
            new Frame("app.Ünïcode", "größe", "()J", 5, 1, "JIT compiled"),
            new Frame("Toplevel", "run", "()V", 1, 0, "JIT compiled"));
    private static final JfrType PROBE = JfrType.event("test.Probe", "Probe", null, "test")
            .pooled("eventThread", JdkChunkWriter.THREAD, "Event Thread")
            .pooled("stackTrace", JdkChunkWriter.STACK_TRACE, "Stack Trace")
            .field("count", "long", "Count").field("cpu", "int", "CPU").field("label", "java.lang.String", "Label")
            .field("flag", "boolean", "Flag").field("faults", "double", "Faults")
            .timespan("clock", "NANOSECONDS", "task-clock").build();

    @TempDir
    static Path directory;
    static Path file;

    @BeforeAll
    static void write() throws IOException {
        file = directory.resolve("chunk.jfr");
        try (SeekableByteChannel out = Files.newByteChannel(file, StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE)) {
            JdkChunkWriter writer = new JdkChunkWriter(out, START, ChunkContext.alone(), List.of(PROBE));
            long main = writer.thread("main", 100, "main", 1);
            long gc = writer.thread("GC Thread#0", 101, null, 0);
            long java = writer.stackTrace(JAVA_STACK, false);
            long nativeStack = writer.stackTrace(NATIVE_STACK, true);
            writer.activeSetting(START, JdkChunkWriter.EXECUTION_SAMPLE, "enabled", "true");
            writer.activeSetting(START, JdkChunkWriter.EXECUTION_SAMPLE, "period", "1 ms");
            for (int i = 1; i <= 3; i++) {
                writer.executionSample(START + i * MILLISECOND, main, java);
            }
            writer.executionSample(START + 4 * MILLISECOND, gc, nativeStack);
            writer.event(PROBE, START + 5 * MILLISECOND, main, java, 1L << 40, 3, "task-clock", true, 7.0, 999_000L);
            writer.close();
        }
    }

    @Test
    void theJdksParserReadsEverySampleWithItsFieldsInTheJdksOrder() throws IOException {
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        List<RecordedEvent> samples = events.stream()
                .filter(event -> event.getEventType().getName().equals(JdkChunkWriter.EXECUTION_SAMPLE)).toList();
        assertEquals(4, samples.size());
        EventType sampleType = samples.get(0).getEventType();
        assertEquals(List.of("startTime", "sampledThread", "stackTrace", "state"),
                sampleType.getFields().stream().map(ValueDescriptor::getName).toList());
        RecordedEvent first = samples.get(0);
        assertEquals(Instant.ofEpochSecond(0, START + MILLISECOND), first.getStartTime());
        assertEquals("main", first.getThread("sampledThread").getJavaName());
        assertEquals(100, first.getThread("sampledThread").getOSThreadId());
        assertEquals("STATE_RUNNABLE", first.getString("state"));
        assertEquals(List.of("app.Hasher.hash(I)I:10@3 JIT compiled", "app.Hasher.mix(I)I:20@7 Inlined",
                "app.Main.run()V:30@0 Interpreted", "app.Main.main([Ljava/lang/String;)V:40@12 Java"),
                describe(first.getStackTrace().getFrames()));
        assertFalse(first.getStackTrace().isTruncated());
        RecordedEvent last = samples.get(3);
        assertNull(last.getThread("sampledThread").getJavaName());
        assertEquals("GC Thread#0", last.getThread("sampledThread").getOSName());
        assertTrue(last.getStackTrace().isTruncated());
        assertEquals(List.of("libc.so.6.memcpy:-1@-1 Native", "app.Ünïcode.größe()J:5@1 JIT compiled",
                "Toplevel.run()V:1@0 JIT compiled"), describe(last.getStackTrace().getFrames()));

        Map<String, String> settings = new TreeMap<>();
        for (RecordedEvent event : events) {
            if (event.getEventType().getName().equals(JdkChunkWriter.ACTIVE_SETTING)) {
                assertEquals(sampleType.getId(), event.getLong("id"), "the setting is of the sample type's id");
                settings.put(event.getString("name"), event.getString("value"));
            }
        }
        assertEquals(Map.of("enabled", "true", "period", "1 ms"), settings);

        RecordedEvent probe = events.stream().filter(event -> event.getEventType().getName().equals("test.Probe"))
                .findFirst().orElseThrow();
        assertEquals(1L << 40, probe.getLong("count"));
        assertEquals(3, probe.getInt("cpu"));
        assertEquals("task-clock", probe.getString("label"));
        assertTrue(probe.getBoolean("flag"));
        assertEquals(7.0, probe.getDouble("faults"));
        assertEquals(999_000, probe.getDuration("clock").toNanos());
        assertEquals("main", probe.getThread().getJavaName());
        assertEquals(4, probe.getStackTrace().getFrames().size());
    }

    @Test
    void jmcCoreCountsTheSamplesAsExecutionSamplesWithTheirPeriod() throws Exception {
        IItemCollection all = JfrLoaderToolkit.loadEvents(file.toFile());
        IItemCollection samples = all.apply(JdkFilters.EXECUTION_SAMPLE);
        List<String> tops = new ArrayList<>();
        List<String> threads = new ArrayList<>();
        for (IItemIterable items : samples) {
            IMemberAccessor<IMCStackTrace, IItem> stack = JfrAttributes.EVENT_STACKTRACE.getAccessor(items.getType());
            IMemberAccessor<IMCThread, IItem> thread = JfrAttributes.EVENT_THREAD.getAccessor(items.getType());
            for (IItem item : items) {
                IMCFrame top = stack.getMember(item).getFrames().get(0);
                tops.add(top.getMethod().getType().getFullName() + "." + top.getMethod().getMethodName() + " "
                        + top.getType().getName());
                threads.add(thread.getMember(item).getThreadName());
            }
        }
        String compiled = IMCFrame.Type.JIT_COMPILED.getName();
        assertEquals(List.of("app.Hasher.hash " + compiled, "app.Hasher.hash " + compiled, "app.Hasher.hash " + compiled,
                "libc.so.6.memcpy " + IMCFrame.Type.NATIVE.getName()), tops.stream().sorted().toList());
        assertEquals(List.of("GC Thread#0", "main", "main", "main"), threads.stream().sorted().toList());

        Map<String, String> settings = new HashMap<>();
        for (IItemIterable items : all.apply(ItemFilters.type(JdkChunkWriter.ACTIVE_SETTING))) {
            IMemberAccessor<LabeledIdentifier, IItem> of = JdkAttributes.REC_SETTING_FOR.getAccessor(items.getType());
            IMemberAccessor<String, IItem> name = JdkAttributes.REC_SETTING_NAME.getAccessor(items.getType());
            IMemberAccessor<String, IItem> value = JdkAttributes.REC_SETTING_VALUE.getAccessor(items.getType());
            for (IItem item : items) {
                settings.put(of.getMember(item).getInterfaceId() + " " + name.getMember(item), value.getMember(item));
            }
        }
        assertEquals("1 ms", settings.get("jdk.ExecutionSample period"), settings.toString());
    }

    @Test
    void asyncProfilersConverterReadsTheSamplesByPositionWithTheJdksFrameTypes() throws IOException {
        try (JfrReader reader = new JfrReader(file.toString())) {
            List<ExecutionSample> samples = reader.readAllEvents(ExecutionSample.class);
            assertEquals(4, samples.size());
            StackTrace java = reader.stackTraces.get(samples.get(0).stackTraceId);
            assertArrayEquals(new byte[] {1, 2, 0, 6}, java.types);
            assertEquals(10, java.locations[0] >>> 16);
            StackTrace nativeStack = reader.stackTraces.get(samples.get(3).stackTraceId);
            assertArrayEquals(new byte[] {3, 1, 1}, nativeStack.types);
            assertEquals("größe", new String(reader.symbols.get(reader.methods.get(nativeStack.methods[1]).name),
                    StandardCharsets.UTF_8));
            assertEquals("main", reader.threads.get(samples.get(0).tid));
            assertEquals("GC Thread#0", reader.threads.get(samples.get(3).tid));
            assertEquals("1 ms", reader.settings.get("period"));
        }
        // The converter as users run it (jfrconv -o collapsed): every sample once, with its frames'
        // types as the converter marks them ([j] compiled, [i] inlined, [0] interpreted, [1] its C1
        // type: stackreq's undetermined Java frame) and the native frame as the JDK's (a Java native
        // method: no type mark).
        Path collapsed = directory.resolve("chunk.collapsed");
        Arguments arguments = new Arguments();
        arguments.output = "collapsed";
        JfrToFlame.convert(file.toString(), collapsed.toString(), arguments);
        Map<String, Long> stacks = new TreeMap<>();
        for (String line : Files.readAllLines(collapsed)) {
            int space = line.lastIndexOf(' ');
            stacks.put(line.substring(0, space), Long.parseLong(line.substring(space + 1)));
        }
        assertEquals(Map.of(
                "app/Main.main_[1];app/Main.run_[0];app/Hasher.mix_[i];app/Hasher.hash_[j]", 3L,
                "Toplevel.run_[j];app/Ünïcode.größe_[j];libc.so.6.memcpy", 1L), stacks);
    }

    @Test
    void theLayoutIsTheJdks() throws IOException {
        ChunkMetadata metadata;
        try (ChunkFile chunks = new ChunkFile(file)) {
            List<ChunkFile.Header> headers = chunks.headers();
            assertEquals(1, headers.size());
            assertEquals(2, headers.get(0).major());
            assertEquals(ChunkFile.COMPRESSED_INTEGERS, headers.get(0).flags());
            metadata = chunks.metadata(headers.get(0));
        }
        // Grafana Pyroscope's jfr-parser stops when one of these is not declared.
        for (String required : List.of("int", "long", "short", "float", "boolean", "java.lang.String",
                "jdk.types.FrameType", "jdk.types.ThreadState", "java.lang.Thread", "java.lang.Class",
                "jdk.types.Method", "jdk.types.Package", "jdk.types.Symbol", "jdk.types.StackTrace",
                "jdk.types.ClassLoader", "jdk.types.StackFrame")) {
            assertTrue(metadata.idOf(required) >= 0, required + " is declared");
        }
        ChunkMetadata.Type sample = metadata.type(JdkChunkWriter.EXECUTION_SAMPLE);
        assertEquals("jdk.jfr.Event", sample.superType());
        assertEquals(List.of("startTime", "sampledThread", "stackTrace", "state"),
                sample.fields().stream().map(ChunkMetadata.Field::name).toList());
        assertEquals(List.of(false, true, true, true),
                sample.fields().stream().map(ChunkMetadata.Field::constantPool).toList());
        // async-profiler keeps only types without a supertype in its constant-pool table, and reads
        // a simple type's pool as an enumeration (frame types, thread states).
        for (ChunkMetadata.Type type : metadata.types().values()) {
            if (!type.isEvent() && !"java.lang.annotation.Annotation".equals(type.superType())) {
                assertNull(type.superType(), type.name());
            }
        }
        for (String simple : Set.of("jdk.types.Symbol", "jdk.types.FrameType", "jdk.types.ThreadState")) {
            assertTrue(metadata.type(simple).simpleType(), simple);
        }
        ChunkMetadata.Type frames = metadata.type("jdk.types.StackTrace");
        ChunkMetadata.Field frameArray = frames.fields().get(frames.fieldIndex("frames"));
        assertTrue(frameArray.array() && !frameArray.constantPool(), "frames are inline in their stack trace");
        assertEquals(List.of("method", "lineNumber", "bytecodeIndex", "type"), metadata.type("jdk.types.StackFrame")
                .fields().stream().map(ChunkMetadata.Field::name).toList());
        assertEquals(List.of("classLoader", "name", "package", "modifiers", "hidden"), metadata.type("java.lang.Class")
                .fields().stream().map(ChunkMetadata.Field::name).toList());
    }

    @Test
    void beforeTheStartNoEventIsWritten() throws IOException {
        try (SeekableByteChannel out = Files.newByteChannel(directory.resolve("early.jfr"),
                StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            JdkChunkWriter writer = new JdkChunkWriter(out, START, ChunkContext.alone(), List.of());
            long thread = writer.thread("main", 1, "main", 1);
            long stack = writer.stackTrace(JAVA_STACK, false);
            IllegalArgumentException early = org.junit.jupiter.api.Assertions.assertThrows(
                    IllegalArgumentException.class, () -> writer.executionSample(START - 1, thread, stack));
            assertTrue(early.getMessage().contains("before the chunk's start"), early.getMessage());
            writer.close();
        }
    }

    private static List<String> describe(List<RecordedFrame> frames) {
        List<String> described = new ArrayList<>();
        for (RecordedFrame frame : frames) {
            described.add(frame.getMethod().getType().getName() + "." + frame.getMethod().getName()
                    + frame.getMethod().getDescriptor() + ":" + frame.getLineNumber() + "@" + frame.getBytecodeIndex()
                    + " " + frame.getType());
        }
        return described;
    }
}
