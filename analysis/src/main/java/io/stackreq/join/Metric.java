package io.stackreq.join;

import java.util.Set;

import io.stackreq.model.InputException;
import io.stackreq.model.JfrSampleSpec;
import io.stackreq.model.Sample;
import io.stackreq.model.SampleFileHeader;

/**
 * What one sample weighs: the chosen counter's delta since the previous sample, or 1 per
 * stack-trace event when there are no samples.
 *
 * @param name the counter ({@code task-clock}, {@code page-faults}, ...) or {@link #EVENTS}
 * @param unit "ns" for time counters, "count" for the others, "events" for {@link #EVENTS}
 */
public record Metric(String name, String unit) {
    /** The metric without a sample file: every stack-trace event weighs 1. */
    public static final String EVENTS = "events";
    /**
     * Every matched sample weighs 1, whatever its counters say: the shares the readers of
     * {@code jdk.ExecutionSample} (which count samples) show for the same samples.
     */
    public static final String SAMPLES = JfrSampleSpec.COUNT;

    // Counters whose values are nanoseconds (perf's software clocks and the agent's CPU timer).
    private static final Set<String> TIME_COUNTERS = Set.of("task-clock", "cpu-clock", "cpu-timer");

    public static Metric eventCount() {
        return new Metric(EVENTS, "events");
    }

    /**
     * The metric to weigh samples by: {@code requested}, or the leader when null.
     *
     * @throws InputException when the sample file does not count {@code requested}
     */
    public static Metric forSamples(String requested, SampleFileHeader header, String fileName) {
        String name = requested == null ? header.leader() : requested;
        if (name.equals(SAMPLES) && !header.events().contains(name)) {
            return new Metric(SAMPLES, "count");
        }
        if (!header.events().contains(name) && !name.equals(header.leader())) {
            throw new InputException("metric '" + name + "' is not counted in " + fileName + " (its events: "
                    + String.join(", ", header.events()) + "; or " + SAMPLES + ": each sample weighs 1)");
        }
        boolean time = TIME_COUNTERS.contains(name) || (name.equals(header.leader()) && header.isTimeBased());
        return new Metric(name, time ? "ns" : "count");
    }

    /** The sample's weight: its delta of this counter, or its period when it only has the leader's period. */
    public long weightOf(Sample sample) {
        Long delta = sample.deltas().get(name);
        if (delta != null) {
            return delta;
        }
        if (name.equals(sample.event())) {
            return sample.period();
        }
        if (name.equals(SAMPLES)) {
            return 1;
        }
        throw new InputException("sample at line " + sample.line() + " has no delta for metric '" + name + "'");
    }
}
