package io.stackreq.join;

import java.util.Map;

/**
 * How well the samples and the stack-trace events fit together.
 *
 * @param samples             lines of type sample in the sample file (0 without one)
 * @param matched             samples attributed to a stack (events with a stack without a sample file)
 * @param matchedWeight       their weight
 * @param noEvent             accepted samples whose userData no event has
 * @param noEventWeight       their weight
 * @param failedEvent         samples whose event has no stack (failed)
 * @param failedEventWeight   their weight
 * @param rejected            samples RequestStackTrace refused (error != 0): never an event
 * @param rejectedByError     rejected samples by jvmtiError code
 * @param duplicateSamples    samples repeating an earlier sample's userData
 * @param events              stack-trace events in the recording
 * @param eventsWithoutSample events no sample refers to (0 without a sample file)
 * @param duplicateEvents     events repeating an earlier event's userData (ignored)
 * @param biasedMatched       matched samples whose stack was taken at a safepoint (biased)
 * @param agentLost           samples the perf agent lost, from its end line, or -1 when unknown
 * @param sampleFileComplete  whether the sample file has its end line
 * @param truncatedLastLine   whether the sample file ends in the middle of a line
 * @param statistics          the JVM side's counters from {@code stackreq.RequestStatistics}
 */
public record JoinQuality(long samples, long matched, long matchedWeight, long noEvent, long noEventWeight,
        long failedEvent, long failedEventWeight, long rejected, Map<Integer, Long> rejectedByError,
        long duplicateSamples, long events, long eventsWithoutSample, long duplicateEvents, long biasedMatched,
        long agentLost, boolean sampleFileComplete, boolean truncatedLastLine, Map<String, Long> statistics) {

    /** Samples that could have matched: accepted by RequestStackTrace and not duplicates. */
    public long unmatched() {
        return noEvent + failedEvent;
    }

    /** matched / (matched + unmatched), in percent; 0 when there is nothing to match. */
    public double matchedPercent() {
        long candidates = matched + unmatched();
        return candidates == 0 ? 0 : 100.0 * matched / candidates;
    }

    /** Share of matched samples whose stack is biased, in percent. */
    public double biasedPercent() {
        return matched == 0 ? 0 : 100.0 * biasedMatched / matched;
    }

    /** Requests the JVM side accepted but lost (ring full), or -1 when the recording has no statistics. */
    public long droppedInJvm() {
        return statistics.getOrDefault("dropped", -1L);
    }
}
