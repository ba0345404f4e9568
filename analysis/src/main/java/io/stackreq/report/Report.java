package io.stackreq.report;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import io.stackreq.join.JoinQuality;
import io.stackreq.join.JoinScope;

/**
 * A report, as {@code report --format json} writes it.
 *
 * @param recording   the recording read
 * @param samplesFile the sample file joined, or null when events were counted alone
 * @param metric      the counter weights are in ({@code events} without a sample file)
 * @param unit        "ns", "count" or "events"
 * @param by          "method", "line" or "stack"
 * @param totalWeight weight of all matched samples: the 100% of every percentage
 * @param matched     samples attributed to a stack
 * @param unmatched   accepted samples that could not be attributed (no event, or a failed one)
 * @param quality     the full join quality
 * @param scope       what the join took from its inputs and left out
 * @param entries     rows, by self weight, at most {@code --top}
 * @param threads     per-thread rows, only with {@code --threads}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"recording", "samplesFile", "metric", "unit", "by", "totalWeight", "matched", "unmatched",
        "quality", "scope", "entries", "threads"})
public record Report(String recording, String samplesFile, String metric, String unit, String by, long totalWeight,
        long matched, long unmatched, Quality quality, JoinScope scope, List<ReportEntry> entries,
        List<ThreadReport> threads) {

    /**
     * The join quality in JSON.
     *
     * @param rejectedByError         rejected samples by jvmtiError code (name in parentheses)
     * @param droppedInJvm            accepted requests the JVM side lost (statistics event), -1 when unknown
     * @param agentLost               samples the perf agent lost (its end line), -1 when unknown
     * @param sampleFileComplete      whether the sample file has its end line (not: the JVM was killed)
     * @param sampleFileCutOff        whether the sample file ends in the middle of a line (skipped)
     */
    @JsonPropertyOrder({"samples", "matched", "matchedPct", "noEvent", "failedEvent", "rejected", "rejectedByError",
            "duplicateSamples", "events", "eventsWithoutSample", "duplicateEvents", "biased", "biasedPct",
            "droppedInJvm", "agentLost", "sampleFileComplete", "sampleFileCutOff", "statistics"})
    public record Quality(long samples, long matched, double matchedPct, long noEvent, long failedEvent,
            long rejected, java.util.Map<String, Long> rejectedByError, long duplicateSamples, long events,
            long eventsWithoutSample, long duplicateEvents, long biased, double biasedPct, long droppedInJvm,
            long agentLost, boolean sampleFileComplete, boolean sampleFileCutOff,
            java.util.Map<String, Long> statistics) {

        static Quality of(JoinQuality q) {
            java.util.Map<String, Long> rejected = new java.util.LinkedHashMap<>();
            q.rejectedByError().forEach((code, count) -> rejected.put(JvmtiErrors.describe(code), count));
            return new Quality(q.samples(), q.matched(), ReportBuilder.round(q.matchedPercent()), q.noEvent(),
                    q.failedEvent(), q.rejected(), rejected, q.duplicateSamples(), q.events(),
                    q.eventsWithoutSample(), q.duplicateEvents(), q.biasedMatched(),
                    ReportBuilder.round(q.biasedPercent()), q.droppedInJvm(), q.agentLost(), q.sampleFileComplete(),
                    q.truncatedLastLine(), q.statistics());
        }
    }
}
