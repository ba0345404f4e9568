package io.stackreq.report;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonUnwrapped;

import io.stackreq.join.JoinQuality;
import io.stackreq.join.JoinScope;

/**
 * A report, as {@code report --format json} writes it: one object, the fields of its inputs,
 * legend, totals and tables side by side with its quality and scope.
 *
 * @param inputs  the files read
 * @param legend  what the weights are and what a row stands for
 * @param totals  the weight every percentage is of, and the samples it is of
 * @param quality the full join quality
 * @param scope   what the join took from its inputs and left out
 * @param tables  the rows: the whole report's and, with {@code --threads}, each thread's
 * @param jfrSamples the JVM's own samples in the recording, by type: the 100% of each row's
 *                {@code jfr} shares; null when it has none
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"inputs", "legend", "totals", "jfrSamples", "quality", "scope", "tables"})
public record Report(@JsonUnwrapped Inputs inputs, @JsonUnwrapped Legend legend, @JsonUnwrapped Totals totals,
        Quality quality, JoinScope scope, @JsonUnwrapped Tables tables, Map<String, Long> jfrSamples) {

    /**
     * @param recording   the recording read
     * @param samplesFile the sample file joined, or null when events were counted alone
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonPropertyOrder({"recording", "samplesFile"})
    public record Inputs(String recording, String samplesFile) {
    }

    /**
     * How to read the tables.
     *
     * @param metric the counter weights are in ({@code events} without a sample file)
     * @param unit   "ns", "count" or "events"
     * @param by     "method", "line" or "stack"
     */
    @JsonPropertyOrder({"metric", "unit", "by"})
    public record Legend(String metric, String unit, String by) {
    }

    /**
     * @param totalWeight weight of all matched samples: the 100% of every percentage
     * @param matched     samples attributed to a stack
     * @param unmatched   accepted samples that could not be attributed (no event, or a failed one)
     */
    @JsonPropertyOrder({"totalWeight", "matched", "unmatched"})
    public record Totals(long totalWeight, long matched, long unmatched) {
    }

    /**
     * @param entries rows, by self weight, at most {@code --top}
     * @param threads per-thread rows, only with {@code --threads}
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonPropertyOrder({"entries", "threads"})
    public record Tables(List<ReportEntry> entries, List<ThreadReport> threads) {
    }

    /**
     * The join quality in JSON: one object, its parts' fields side by side.
     *
     * @param ofSamples  what became of the samples
     * @param setAside   samples that could not match
     * @param ofEvents   what became of the stack-trace events
     * @param bias       how many attributed stacks were taken at a safepoint
     * @param losses     what was lost on the way
     * @param statistics the JVM side's counters from {@code stackreq.RequestStatistics}
     */
    @JsonPropertyOrder({"ofSamples", "setAside", "ofEvents", "bias", "losses", "statistics"})
    public record Quality(@JsonUnwrapped Samples ofSamples, @JsonUnwrapped SetAside setAside,
            @JsonUnwrapped Events ofEvents, @JsonUnwrapped Bias bias, @JsonUnwrapped Losses losses,
            Map<String, Long> statistics) {

        /** Samples, matched, the share of accepted ones matched, and those that did not match. */
        @JsonPropertyOrder({"samples", "matched", "matchedPct", "noEvent", "failedEvent"})
        public record Samples(long samples, long matched, double matchedPct, long noEvent, long failedEvent) {
        }

        /** @param rejectedByError rejected samples by jvmtiError code (name in parentheses) */
        @JsonPropertyOrder({"rejected", "rejectedByError", "duplicateSamples"})
        public record SetAside(long rejected, Map<String, Long> rejectedByError, long duplicateSamples) {
        }

        @JsonPropertyOrder({"events", "eventsWithoutSample", "duplicateEvents"})
        public record Events(long events, long eventsWithoutSample, long duplicateEvents) {
        }

        @JsonPropertyOrder({"biased", "biasedPct"})
        public record Bias(long biased, double biasedPct) {
        }

        /**
         * @param droppedInJvm       accepted requests the JVM side lost (statistics event), -1 when unknown
         * @param agentLost          samples the perf agent lost (its end line), -1 when unknown
         * @param sampleFileComplete whether the sample file has its end line (not: the JVM was killed)
         * @param sampleFileCutOff   whether the sample file ends in the middle of a line (skipped)
         */
        @JsonPropertyOrder({"droppedInJvm", "agentLost", "sampleFileComplete", "sampleFileCutOff"})
        public record Losses(long droppedInJvm, long agentLost, boolean sampleFileComplete,
                boolean sampleFileCutOff) {
        }

        static Quality of(JoinQuality q) {
            Map<String, Long> rejected = new LinkedHashMap<>();
            q.rejectedByError().forEach((code, count) -> rejected.put(JvmtiErrors.describe(code), count));
            return new Quality(
                    new Samples(q.samples(), q.matched(), ReportBuilder.round(q.matchedPercent()), q.noEvent(),
                            q.failedEvent()),
                    new SetAside(q.rejected(), rejected, q.duplicateSamples()),
                    new Events(q.events(), q.eventsWithoutSample(), q.duplicateEvents()),
                    new Bias(q.biasedMatched(), ReportBuilder.round(q.biasedPercent())),
                    new Losses(q.droppedInJvm(), q.agentLost(), q.sampleFileComplete(), q.truncatedLastLine()),
                    q.statistics());
        }
    }
}
