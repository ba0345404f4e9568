package io.stackreq.model;

import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The JVM's own CPU samples in a recording ({@code jdk.ExecutionSample}; {@code jdk.CPUTimeSample}
 * where the JDK has it): how many of each type, and their stacks counted. What JFR alone says,
 * to show beside stackreq's unbiased shares.
 */
public final class JvmSamples {
    public static final String EXECUTION_SAMPLE = "jdk.ExecutionSample";
    public static final String CPU_TIME_SAMPLE = "jdk.CPUTimeSample";
    /** The types read, in the order reports show them. */
    public static final List<String> TYPES = List.of(EXECUTION_SAMPLE, CPU_TIME_SAMPLE);
    static final JvmSamples NONE = new JvmSamples(Map.of());

    /** Self and total samples of one method (or line): with it on top, and with it anywhere on the stack. */
    public record Tally(long self, long total) {
    }

    private final Map<String, Map<List<Frame>, Long>> stacksByType;

    private JvmSamples(Map<String, Map<List<Frame>, Long>> stacksByType) {
        this.stacksByType = stacksByType;
    }

    /** The samples with a stack, by type, for the types the recording holds samples of, in {@link #TYPES} order. */
    public Map<String, Long> counts() {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (String type : TYPES) {
            Map<List<Frame>, Long> stacks = stacksByType.get(type);
            if (stacks != null) {
                counts.put(type, stacks.values().stream().mapToLong(Long::longValue).sum());
            }
        }
        return counts;
    }

    /**
     * Self and total samples of {@code type} by key (a method's or a line's name); a key counts once
     * per sample however often it recurs on the stack.
     */
    public Map<String, Tally> tally(String type, Function<Frame, String> key) {
        Map<String, long[]> sums = new HashMap<>();
        for (Map.Entry<List<Frame>, Long> stack : stacksByType.getOrDefault(type, Map.of()).entrySet()) {
            List<Frame> frames = stack.getKey();
            long count = stack.getValue();
            sums.computeIfAbsent(key.apply(frames.get(0)), k -> new long[2])[0] += count;
            frames.stream().map(key).distinct().forEach(name -> sums.computeIfAbsent(name, k -> new long[2])[1] += count);
        }
        Map<String, Tally> tallies = new HashMap<>();
        sums.forEach((name, sum) -> tallies.put(name, new Tally(sum[0], sum[1])));
        return tallies;
    }

    /** Counts the stacks of the JVM's samples as they are read. */
    static final class Builder {
        private final Map<String, Map<List<Frame>, Long>> stacksByType = new LinkedHashMap<>();

        /** A type the recording declares: its samples count from zero. */
        void declare(String type) {
            stacksByType.computeIfAbsent(type, t -> new HashMap<>());
        }

        /** @param frames top frame first, not empty */
        void add(String type, List<Frame> frames) {
            stacksByType.computeIfAbsent(type, t -> new HashMap<>()).merge(frames, 1L, Long::sum);
        }

        JvmSamples build() {
            Map<String, Map<List<Frame>, Long>> withSamples = new LinkedHashMap<>();
            stacksByType.forEach((type, stacks) -> {
                if (!stacks.isEmpty()) {
                    withSamples.put(type, stacks);
                }
            });
            return withSamples.isEmpty() ? NONE : new JvmSamples(Collections.unmodifiableMap(withSamples));
        }
    }
}
