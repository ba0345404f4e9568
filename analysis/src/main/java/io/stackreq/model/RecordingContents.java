package io.stackreq.model;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the CLI takes from a recording, kept compact: per event only its userData, its time and
 * the index of its shape (stack, thread, flags, requester), 20 bytes; the shapes and their stacks
 * once each. A recording of millions of events then fits in a small heap; {@link #event} makes a
 * {@link StackEvent} when asked. {@link #ofRequester} gives the events of one requester (the
 * library that called RequestStackTrace) for 4 more bytes each, when several share the recording.
 */
public final class RecordingContents {
    /**
     * Events per block: the columns grow by blocks, never by copying what they hold. A block of
     * longs stays under half of G1's smallest region (1 MB): larger arrays would each take whole
     * regions of their own, wasting up to half the heap they use.
     */
    private static final int BLOCK_BITS = 15;
    private static final int BLOCK_SIZE = 1 << BLOCK_BITS;
    private static final int BLOCK_MASK = BLOCK_SIZE - 1;

    private final Path file;
    private final List<long[]> userData;
    private final List<long[]> times;
    private final List<int[]> shapeIndices;
    /** An event of each shape, its userData and time 0: its thread and trace are what its events share. */
    private final List<StackEvent> shapes;
    private final List<String> shapeRequesters;
    private final Map<String, Long> requesterEvents;
    /** The events of this view by their index in the recording, in file order; null when it has them all. */
    private final int[] selected;
    private final int size;
    private final boolean userDataAscending;
    private final long firstEventNanos;
    private final long lastEventNanos;
    private final Map<String, Long> statistics;
    private final JvmSamples jvmSamples;

    private RecordingContents(Builder builder, Map<String, Long> statistics, JvmSamples jvmSamples) {
        this.file = builder.file;
        this.userData = builder.userData;
        this.times = builder.times;
        this.shapeIndices = builder.shapeIndices;
        this.shapes = List.copyOf(builder.shapes);
        this.shapeRequesters = List.copyOf(builder.shapeRequesters);
        this.requesterEvents = Collections.unmodifiableMap(new TreeMap<>(builder.requesterEvents));
        this.selected = null;
        this.size = builder.size;
        this.userDataAscending = builder.userDataAscending;
        this.firstEventNanos = builder.firstEventNanos;
        this.lastEventNanos = builder.lastEventNanos;
        this.statistics = Collections.unmodifiableMap(new LinkedHashMap<>(statistics));
        this.jvmSamples = jvmSamples;
    }

    /** The events of {@code all}'s recording that {@code requester} requested, in file order. */
    private RecordingContents(RecordingContents all, String requester) {
        this.file = all.file;
        this.userData = all.userData;
        this.times = all.times;
        this.shapeIndices = all.shapeIndices;
        this.shapes = all.shapes;
        this.shapeRequesters = all.shapeRequesters;
        this.requesterEvents = all.requesterEvents;
        this.statistics = all.statistics;
        this.jvmSamples = all.jvmSamples;
        this.size = (int) (long) requesterEvents.getOrDefault(requester, 0L);
        this.selected = new int[size];
        int count = 0;
        boolean ascending = true;
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        // Every event of the recording, whichever requester's: a view is not what it was made of.
        long recorded = requesterEvents.values().stream().mapToLong(Long::longValue).sum();
        for (int index = 0; index < recorded; index++) {
            if (shapeRequesters.get(shapeIndices.get(index >>> BLOCK_BITS)[index & BLOCK_MASK]).equals(requester)) {
                selected[count] = index;
                ascending &= count == 0 || at(userData, index) >= at(userData, selected[count - 1]);
                long time = at(times, index);
                first = Math.min(first, time);
                last = Math.max(last, time);
                count++;
            }
        }
        this.userDataAscending = ascending;
        this.firstEventNanos = first;
        this.lastEventNanos = last;
    }

    /**
     * The events {@code requester} requested (as {@link #requesterEvents()} names it), in file
     * order; this when they are all of them.
     */
    public RecordingContents ofRequester(String requester) {
        if (selected == null && requesterEvents.getOrDefault(requester, 0L) == size) {
            return this;
        }
        return new RecordingContents(this, requester);
    }

    /**
     * How many events each requester (the file name of the library that called RequestStackTrace)
     * has in the whole recording, by name; "" for events that name none (a recording older than the
     * field, the JDK's own event, or a requester the agent could not tell).
     */
    public Map<String, Long> requesterEvents() {
        return requesterEvents;
    }

    public Path file() {
        return file;
    }

    public int eventCount() {
        return size;
    }

    /** The userData of event {@code index} (file order), without making the event. */
    public long userData(int index) {
        return at(userData, inRecording(index));
    }

    /** Event {@code index} in file order, made from its columns. */
    public StackEvent event(int index) {
        int event = inRecording(index);
        StackEvent shape = shapes.get(shapeIndices.get(event >>> BLOCK_BITS)[event & BLOCK_MASK]);
        // The thread and trace are the shape's, shared by its events: making an event is one object.
        return new StackEvent(at(userData, event), at(times, event), shape.thread(), shape.trace());
    }

    private static long at(List<long[]> column, int index) {
        return column.get(index >>> BLOCK_BITS)[index & BLOCK_MASK];
    }

    private int inRecording(int index) {
        return selected == null ? index : selected[index];
    }

    /** Whether the userData never decrease in file order (then they need no sorting to be searched). */
    public boolean userDataAscending() {
        return userDataAscending;
    }

    /** The earliest event's time, nanoseconds since the epoch. */
    public long firstEventNanos() {
        return firstEventNanos;
    }

    /** The latest event's time, nanoseconds since the epoch. */
    public long lastEventNanos() {
        return lastEventNanos;
    }

    /**
     * The last value of every numeric field of {@code stackreq.RequestStatistics} (the counters are
     * cumulative), empty when the recording has no such event.
     */
    public Map<String, Long> statistics() {
        return statistics;
    }

    /** The JVM's own CPU samples in the recording, whoever requested the stack-trace events. */
    public JvmSamples jvmSamples() {
        return jvmSamples;
    }

    /**
     * What events share: the same shape is stored once.
     *
     * @param stack the event's stack, from {@link Builder#stackId}
     */
    public record Shape(int stack, String threadName, Long javaThreadId, boolean truncated, boolean failed,
            boolean biased) {
    }

    /** Collects events one at a time, in file order. */
    public static final class Builder {
        private record ShapeKey(Shape shape, String requester) {
        }

        private final Path file;
        private final List<long[]> userData = new ArrayList<>();
        private final List<long[]> times = new ArrayList<>();
        private final List<int[]> shapeIndices = new ArrayList<>();
        private final List<StackEvent> shapes = new ArrayList<>();
        private final List<String> shapeRequesters = new ArrayList<>();
        private final Map<ShapeKey, Integer> shapeIndex = new HashMap<>();
        private final Map<String, Long> requesterEvents = new HashMap<>();
        private final List<List<Frame>> stacks = new ArrayList<>();
        private final Map<List<Frame>, Integer> stackIds = new HashMap<>();
        private int size;
        private boolean userDataAscending = true;
        private long firstEventNanos = Long.MAX_VALUE;
        private long lastEventNanos = Long.MIN_VALUE;

        public Builder(Path file) {
            this.file = file;
        }

        /** The id of a stack (top frame first) for {@link #add}: equal stacks have the same id. */
        public int stackId(List<Frame> frames) {
            return stackIds.computeIfAbsent(List.copyOf(frames), key -> {
                stacks.add(key);
                return stacks.size() - 1;
            });
        }

        /** @param requester the library that requested the event's stack, "" when it names none */
        public void add(long eventUserData, long startEpochNanos, String requester, Shape shape) {
            if (size == Integer.MAX_VALUE) {
                throw new InputException("cannot read recording " + file + ": more than " + Integer.MAX_VALUE
                        + " stack-trace events");
            }
            int shapeId = shapeIndex.computeIfAbsent(new ShapeKey(shape, requester), key -> {
                StackEvent.SampledThread thread = new StackEvent.SampledThread(shape.threadName(),
                        shape.javaThreadId());
                shapes.add(new StackEvent(0, 0, thread, new StackEvent.Trace(stacks.get(shape.stack()),
                        shape.truncated(), shape.failed(), shape.biased())));
                shapeRequesters.add(requester);
                return shapes.size() - 1;
            });
            requesterEvents.merge(requester, 1L, Long::sum);
            int offset = size & BLOCK_MASK;
            if (offset == 0) {
                userData.add(new long[BLOCK_SIZE]);
                times.add(new long[BLOCK_SIZE]);
                shapeIndices.add(new int[BLOCK_SIZE]);
            }
            int block = size >>> BLOCK_BITS;
            if (size > 0 && eventUserData < userData.get((size - 1) >>> BLOCK_BITS)[(size - 1) & BLOCK_MASK]) {
                userDataAscending = false;
            }
            userData.get(block)[offset] = eventUserData;
            times.get(block)[offset] = startEpochNanos;
            shapeIndices.get(block)[offset] = shapeId;
            firstEventNanos = Math.min(firstEventNanos, startEpochNanos);
            lastEventNanos = Math.max(lastEventNanos, startEpochNanos);
            size++;
        }

        public int size() {
            return size;
        }

        public RecordingContents build(Map<String, Long> statistics) {
            return build(statistics, JvmSamples.NONE);
        }

        public RecordingContents build(Map<String, Long> statistics, JvmSamples jvmSamples) {
            return new RecordingContents(this, statistics, jvmSamples);
        }
    }
}
