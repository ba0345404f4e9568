package io.stackreq.report;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonUnwrapped;

/**
 * One row of a report.
 *
 * @param name    {@code package.Class.method} (for {@code --by stack}: the top frame's)
 * @param line    the source line, only for {@code --by line}
 * @param stack   the whole stack, top frame first, as {@code package.Class.method:line}; only for {@code --by stack}
 * @param weights the row's self and total weight; in JSON beside the other fields, not an object of their own
 * @param jfr     what the JVM's own samplers gave the same method or line, by sample type
 *                ({@code jdk.ExecutionSample}, {@code jdk.CPUTimeSample}); null when the recording has
 *                none of their samples, and for {@code --by stack}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"name", "line", "stack", "weights", "jfr"})
public record ReportEntry(String name, Integer line, List<String> stack, @JsonUnwrapped Weights weights,
        Map<String, JfrShare> jfr) {

    /**
     * One JFR sampler's share of a row: of its samples, those with the row's method (or line) on top
     * ({@code selfPct}) and anywhere on the stack ({@code totalPct}).
     */
    @JsonPropertyOrder({"selfPct", "totalPct"})
    public record JfrShare(double selfPct, double totalPct) {
    }

    /**
     * @param self     weight of samples whose top frame this is
     * @param selfPct  self as a percentage of the report's total weight
     * @param total    weight of samples with this frame anywhere on the stack (counted once per sample)
     * @param totalPct total as a percentage of the report's total weight
     */
    @JsonPropertyOrder({"self", "selfPct", "total", "totalPct"})
    public record Weights(long self, double selfPct, long total, double totalPct) {
    }
}
