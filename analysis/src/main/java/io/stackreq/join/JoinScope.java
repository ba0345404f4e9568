package io.stackreq.join;

/**
 * What a join took its samples from, and what it left out before matching.
 *
 * @param samplesFormat {@code perf} or {@code jfr} ({@link io.stackreq.model.SampleSource#format()}), null without samples
 * @param undelegated   samples whose profiler walked the stack itself instead of requesting it (userData 0), left out
 */
public record JoinScope(String samplesFormat, long undelegated) {
}
