package io.stackreq.output;

import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import io.stackreq.jfr.JdkChunkWriter;
import io.stackreq.jfr.JfrType;
import io.stackreq.jfr.ChunkContext;
import io.stackreq.join.JoinListener;
import io.stackreq.join.JoinedSample;
import io.stackreq.model.Sample;
import io.stackreq.model.SampleFileHeader;
import io.stackreq.model.StackEvent;

/**
 * {@code profile.jfr} ({@code enrich}): one chunk with two events per matched sample, sharing its
 * stack trace and thread.
 * <ul>
 * <li>{@code jdk.ExecutionSample}, as the JDK writes its own, so that the readers of CPU samples
 * (JMC's Method Profiling page, {@code jfr view hot-methods}, async-profiler's converter and with
 * it IntelliJ and Pyroscope) count each sample once, with its unbiased stack; a
 * {@code jdk.ActiveSetting} gives the sample period (time-based samples only).</li>
 * <li>{@value #EVENT_NAME}, carrying what those readers have no field for: the sample's userData,
 * OS thread id, CPU, which event overflowed, whether the stack is biased, and every counter
 * delta of its group, so that JMC's flame graph and stack-trace views can weigh stacks by any
 * counter. No reader of CPU samples counts it: they read the JDK's sample types only, by name.</li>
 * </ul>
 * Extra fields on {@code jdk.ExecutionSample} instead would break async-profiler's converter,
 * which reads the sample's four fields by position and goes on from there.
 */
public final class EnrichedRecordingWriter implements JoinListener, AutoCloseable {
    public static final String EVENT_NAME = "stackreq.PerfSample";
    /** Every field of an event besides the counters: each counter's field is named by {@link #fieldName}. */
    public static final Set<String> FIXED_FIELDS =
            Set.of("startTime", "eventThread", "stackTrace", "userData", "tid", "cpu", "leader", "biased");

    private final SeekableByteChannel channel;
    private final boolean ownsChannel;
    private final JdkChunkWriter chunk;
    /** The stackreq.PerfSample type, or null when the chunk holds the execution samples only. */
    private final JfrType eventType;
    private final Map<String, CounterField> counters = new LinkedHashMap<>();
    private long written;

    /** How one counter is stored: JMC weighs by a field only when it reads it as a quantity. */
    private record CounterField(String fieldName, boolean nanoseconds) {
    }

    /**
     * Writes {@code file}: a recording of one chunk.
     *
     * @param firstEventEpochNanos time of the earliest event: the recording's start
     * @param context              the recording the samples were joined with: the chunk can be appended to it
     */
    public EnrichedRecordingWriter(Path file, SampleFileHeader header, long firstEventEpochNanos,
            ChunkContext context) throws IOException {
        this(OutputFiles.newChannel(file), true, true, header, firstEventEpochNanos, context);
    }

    /**
     * Writes a chunk of the {@code jdk.ExecutionSample} events alone (no {@value #EVENT_NAME}) to
     * {@code channel} from its position, after the chunks of the recording of {@code context};
     * {@link #close()} leaves the channel open. The JDK's {@code jfr view} knows only the types of
     * a file's first chunk: a type of this chunk's own would be one it cannot show.
     */
    public static EnrichedRecordingWriter executionSamplesTo(SeekableByteChannel channel, SampleFileHeader header,
            long firstEventEpochNanos, ChunkContext context) throws IOException {
        return new EnrichedRecordingWriter(channel, false, false, header, firstEventEpochNanos, context);
    }

    private EnrichedRecordingWriter(SeekableByteChannel channel, boolean ownsChannel, boolean withCounters,
            SampleFileHeader header, long firstEventEpochNanos, ChunkContext context) throws IOException {
        this.channel = channel;
        this.ownsChannel = ownsChannel;
        JfrType.Builder type = JfrType.event(EVENT_NAME, "Perf Sample",
                "A perf counter overflow joined by stackreq with its unbiased stack trace (the same sample is a "
                        + JdkChunkWriter.EXECUTION_SAMPLE + ")", "stackreq")
                .pooled("eventThread", "java.lang.Thread", "Event Thread")
                .pooled("stackTrace", "jdk.types.StackTrace", "Stack Trace")
                .field("userData", "long", "User Data").field("tid", "long", "OS Thread Id")
                .field("cpu", "int", "CPU").field("leader", "java.lang.String", "Sampled Event")
                .field("biased", "boolean", "Biased");
        for (String counter : header.valueEvents()) {
            boolean time = counter.equals("task-clock") || counter.equals("cpu-clock") || counter.equals("cpu-timer")
                    || (counter.equals(header.leader()) && header.isTimeBased());
            CounterField field = new CounterField(fieldName(counter), time);
            counters.put(counter, field);
            if (time) {
                type.timespan(field.fieldName(), "NANOSECONDS", counter);
            } else {
                // JMC reads an unannotated long as a raw number, which it cannot weigh by; a double
                // is a quantity to JMC and holds counts exactly up to 2^53.
                type.field(field.fieldName(), "double", counter);
            }
        }
        eventType = withCounters ? type.build() : null;
        try {
            chunk = new JdkChunkWriter(channel, firstEventEpochNanos, context,
                    eventType == null ? List.of() : List.of(eventType));
        } catch (IOException | RuntimeException e) {
            if (ownsChannel) {
                channel.close();
            }
            throw e;
        }
        chunk.activeSetting(chunk.startEpochNanos(), JdkChunkWriter.EXECUTION_SAMPLE, "enabled", "true");
        if (header.isTimeBased()) {
            chunk.activeSetting(chunk.startEpochNanos(), JdkChunkWriter.EXECUTION_SAMPLE, "period",
                    period(header.period().value()));
        }
    }

    /** A period as the JDK's settings spell one: "20 ms", "500 us". */
    static String period(long nanos) {
        if (nanos % 1_000_000 == 0) {
            return String.format(Locale.ROOT, "%d ms", nanos / 1_000_000);
        }
        if (nanos % 1_000 == 0) {
            return String.format(Locale.ROOT, "%d us", nanos / 1_000);
        }
        return String.format(Locale.ROOT, "%d ns", nanos);
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
        long stackTrace = chunk.stackTrace(event.frames(), event.truncated());
        long thread = thread(event.threadName(), sample.tid(), event.javaThreadId());
        long time = event.startEpochNanos();
        chunk.executionSample(time, thread, stackTrace);
        written++;
        if (eventType == null) {
            return;
        }
        Object[] values = new Object[eventType.fields().size()];
        int i = 0;
        values[i++] = time;
        values[i++] = thread;
        values[i++] = stackTrace;
        values[i++] = sample.userData();
        values[i++] = sample.tid();
        values[i++] = sample.cpu();
        values[i++] = sample.event();
        values[i++] = event.biased();
        for (Map.Entry<String, CounterField> counter : counters.entrySet()) {
            long delta = delta(sample, counter.getKey());
            values[i++] = counter.getValue().nanoseconds() ? (Object) delta : (Object) (double) delta;
        }
        chunk.event(eventType, values);
    }

    /** Samples written so far (each one a {@code jdk.ExecutionSample} and a {@value #EVENT_NAME}). */
    public long written() {
        return written;
    }

    @Override
    public void close() throws IOException {
        try {
            chunk.close();
        } finally {
            if (ownsChannel) {
                channel.close();
            }
        }
    }

    private static long delta(Sample sample, String counter) {
        Long delta = sample.deltas().get(counter);
        if (delta != null) {
            return delta;
        }
        return counter.equals(sample.event()) ? sample.period() : 0;
    }

    /**
     * @param javaThreadId the Java thread id, or null when the recording has none (written as -1); 0 for
     *                     a thread JVMTI does not show (the JVM's own, a native one), which has no Java
     *                     name, as JFR writes them
     */
    private long thread(String name, long tid, Long javaThreadId) {
        String threadName = name == null ? "tid " + tid : name;
        long javaId = javaThreadId == null ? -1 : javaThreadId;
        return chunk.thread(threadName, tid, javaId == 0 ? null : threadName, javaId);
    }
}
