package io.stackreq.model;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the CLI takes from a recording, kept compact: per event only its userData, its time and
 * the index of its shape (stack, thread, flags), 20 bytes; the shapes and their stacks once
 * each. A recording of millions of events then fits in a small heap; {@link #event} makes a
 * {@link StackEvent} when asked.
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
    private final List<StackEvent> shapes;
    private final int size;
    private final boolean userDataAscending;
    private final long firstEventNanos;
    private final long lastEventNanos;
    private final Map<String, Long> statistics;

    private RecordingContents(Builder builder, Map<String, Long> statistics) {
        this.file = builder.file;
        this.userData = builder.userData;
        this.times = builder.times;
        this.shapeIndices = builder.shapeIndices;
        this.shapes = List.copyOf(builder.shapes);
        this.size = builder.size;
        this.userDataAscending = builder.userDataAscending;
        this.firstEventNanos = builder.firstEventNanos;
        this.lastEventNanos = builder.lastEventNanos;
        this.statistics = Collections.unmodifiableMap(new LinkedHashMap<>(statistics));
    }

    public Path file() {
        return file;
    }

    public int eventCount() {
        return size;
    }

    /** The userData of event {@code index} (file order), without making the event. */
    public long userData(int index) {
        return userData.get(index >>> BLOCK_BITS)[index & BLOCK_MASK];
    }

    /** Event {@code index} in file order, made from its columns. */
    public StackEvent event(int index) {
        StackEvent shape = shapes.get(shapeIndices.get(index >>> BLOCK_BITS)[index & BLOCK_MASK]);
        return new StackEvent(userData(index), times.get(index >>> BLOCK_BITS)[index & BLOCK_MASK],
                shape.threadName(), shape.javaThreadId(), shape.frames(), shape.truncated(), shape.failed(),
                shape.biased());
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

    /** Collects events one at a time, in file order. */
    public static final class Builder {
        /** What events share: the same shape is stored once. */
        private record Shape(int stack, String threadName, Long javaThreadId, boolean truncated, boolean failed,
                boolean biased) {
        }

        private final Path file;
        private final List<long[]> userData = new ArrayList<>();
        private final List<long[]> times = new ArrayList<>();
        private final List<int[]> shapeIndices = new ArrayList<>();
        private final List<StackEvent> shapes = new ArrayList<>();
        private final Map<Shape, Integer> shapeIndex = new HashMap<>();
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

        /** @param stack the event's stack, from {@link #stackId} */
        public void add(long eventUserData, long startEpochNanos, String threadName, Long javaThreadId, int stack,
                boolean truncated, boolean failed, boolean biased) {
            if (size == Integer.MAX_VALUE) {
                throw new InputException("cannot read recording " + file + ": more than " + Integer.MAX_VALUE
                        + " stack-trace events");
            }
            int shape = shapeIndex.computeIfAbsent(
                    new Shape(stack, threadName, javaThreadId, truncated, failed, biased), key -> {
                        shapes.add(new StackEvent(0, 0, threadName, javaThreadId, stacks.get(stack), truncated, failed,
                                biased));
                        return shapes.size() - 1;
                    });
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
            shapeIndices.get(block)[offset] = shape;
            firstEventNanos = Math.min(firstEventNanos, startEpochNanos);
            lastEventNanos = Math.max(lastEventNanos, startEpochNanos);
            size++;
        }

        public int size() {
            return size;
        }

        public RecordingContents build(Map<String, Long> statistics) {
            return new RecordingContents(this, statistics);
        }
    }
}
