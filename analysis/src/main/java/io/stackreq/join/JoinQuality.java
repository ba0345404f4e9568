package io.stackreq.join;

import java.util.Map;

/**
 * How well the samples and the stack-trace events fit together.
 *
 * @param ofSamples  what became of the samples
 * @param ofEvents   what became of the stack-trace events
 * @param sampleFile what the sample file's end says
 * @param statistics the JVM side's counters from {@code stackreq.RequestStatistics}
 */
public record JoinQuality(SampleCounts ofSamples, EventCounts ofEvents, SampleFileEnd sampleFile,
        Map<String, Long> statistics) {

    /** Samples and their summed weight. */
    public record Tally(long count, long weight) {
        public static final Tally NONE = new Tally(0, 0);
    }

    /**
     * @param samples         lines of type sample in the sample file (0 without one)
     * @param matched         samples attributed to a stack (events with a stack without a sample file)
     * @param noEvent         accepted samples whose userData no event has
     * @param failedEvent     samples whose event has no stack (failed)
     * @param rejectedByError samples RequestStackTrace refused (error != 0), by jvmtiError code: never an event
     * @param duplicates      samples repeating an earlier sample's userData
     */
    public record SampleCounts(long samples, Tally matched, Tally noEvent, Tally failedEvent,
            Map<Integer, Long> rejectedByError, long duplicates) {
    }

    /**
     * @param events         stack-trace events in the recording
     * @param withoutSample  events no sample refers to (0 without a sample file)
     * @param duplicates     events repeating an earlier event's userData (ignored)
     * @param biasedMatched  matched samples (each its own event) whose stack was taken at a safepoint (biased)
     */
    public record EventCounts(long events, long withoutSample, long duplicates, long biasedMatched) {
    }

    /**
     * @param agentLost         samples the perf agent lost, from its end line, or -1 when unknown
     * @param complete          whether the sample file has its end line
     * @param truncatedLastLine whether the sample file ends in the middle of a line
     */
    public record SampleFileEnd(long agentLost, boolean complete, boolean truncatedLastLine) {
        /** Without a sample file. */
        public static final SampleFileEnd NONE = new SampleFileEnd(-1, false, false);
    }

    public long samples() {
        return ofSamples.samples();
    }

    public long matched() {
        return ofSamples.matched().count();
    }

    public long matchedWeight() {
        return ofSamples.matched().weight();
    }

    public long noEvent() {
        return ofSamples.noEvent().count();
    }

    public long noEventWeight() {
        return ofSamples.noEvent().weight();
    }

    public long failedEvent() {
        return ofSamples.failedEvent().count();
    }

    public long failedEventWeight() {
        return ofSamples.failedEvent().weight();
    }

    /** Samples RequestStackTrace refused (error != 0): never an event. */
    public long rejected() {
        return ofSamples.rejectedByError().values().stream().mapToLong(Long::longValue).sum();
    }

    public Map<Integer, Long> rejectedByError() {
        return ofSamples.rejectedByError();
    }

    public long duplicateSamples() {
        return ofSamples.duplicates();
    }

    public long events() {
        return ofEvents.events();
    }

    public long eventsWithoutSample() {
        return ofEvents.withoutSample();
    }

    public long duplicateEvents() {
        return ofEvents.duplicates();
    }

    public long biasedMatched() {
        return ofEvents.biasedMatched();
    }

    public long agentLost() {
        return sampleFile.agentLost();
    }

    public boolean sampleFileComplete() {
        return sampleFile.complete();
    }

    public boolean truncatedLastLine() {
        return sampleFile.truncatedLastLine();
    }

    /** Samples that could have matched: accepted by RequestStackTrace and not duplicates. */
    public long unmatched() {
        return noEvent() + failedEvent();
    }

    /** matched / (matched + unmatched), in percent; 0 when there is nothing to match. */
    public double matchedPercent() {
        long candidates = matched() + unmatched();
        return candidates == 0 ? 0 : 100.0 * matched() / candidates;
    }

    /** Share of matched samples whose stack is biased, in percent. */
    public double biasedPercent() {
        return matched() == 0 ? 0 : 100.0 * biasedMatched() / matched();
    }

    /** Requests the JVM side accepted but lost (ring full), or -1 when the recording has no statistics. */
    public long droppedInJvm() {
        return statistics.getOrDefault("dropped", -1L);
    }
}
