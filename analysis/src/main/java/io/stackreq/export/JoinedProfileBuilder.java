package io.stackreq.export;

import java.util.ArrayList;
import java.util.List;

import io.stackreq.join.JoinListener;
import io.stackreq.join.JoinedSample;
import io.stackreq.join.Metric;
import io.stackreq.model.Sample;
import io.stackreq.model.SampleFileHeader;
import io.stackreq.model.StackEvent;
import io.stackreq.tree.TreeBuilder;

/**
 * Sums a join's matched samples into a {@link StackProfile}: one value per counter of the perf
 * group, each weighed exactly as {@code report --metric COUNTER} weighs it, plus the sample count.
 */
public final class JoinedProfileBuilder implements JoinListener {
    private final List<Metric> metrics;
    private final StackProfile profile;

    /**
     * @param header          the sample file's header, or null when the events are counted alone
     * @param samplesFile     the sample file's name, for messages
     * @param startEpochNanos the earliest event's time
     * @param durationNanos   from the earliest to the latest event
     */
    public JoinedProfileBuilder(SampleFileHeader header, String samplesFile, long startEpochNanos,
            long durationNanos) {
        List<Metric> counters = new ArrayList<>();
        List<StackProfile.ValueKind> kinds = new ArrayList<>();
        StackProfile.ValueKind leader = null;
        if (header != null) {
            for (String event : header.valueEvents()) {
                Metric metric = Metric.forSamples(event, header, samplesFile);
                counters.add(metric);
                kinds.add(valueKind(metric));
            }
            leader = valueKind(Metric.forSamples(null, header, samplesFile));
        }
        kinds.add(StackProfile.SAMPLES);
        this.metrics = List.copyOf(counters);
        this.profile = new StackProfile(new StackProfile.Description(kinds, leader,
                header == null ? 0 : header.period().value(), startEpochNanos, durationNanos));
    }

    /** How pprof names the unit of a metric ("ns" is "nanoseconds" to its readers). */
    public static StackProfile.ValueKind valueKind(Metric metric) {
        return new StackProfile.ValueKind(metric.name(), metric.unit().equals("ns") ? "nanoseconds" : "count");
    }

    @Override
    public void accept(JoinedSample joined) {
        if (!joined.matched()) {
            return;
        }
        Sample sample = joined.sample();
        long[] values = new long[metrics.size() + 1];
        for (int i = 0; i < metrics.size(); i++) {
            values[i] = metrics.get(i).weightOf(sample);
        }
        values[metrics.size()] = 1;
        StackEvent event = joined.event();
        profile.add(event.frames(), new StackProfile.ThreadId(TreeBuilder.threadName(joined), event.javaThreadId(),
                sample == null || sample.tid() == Sample.UNKNOWN_TID ? null : sample.tid()), values);
    }

    public StackProfile profile() {
        return profile;
    }
}
