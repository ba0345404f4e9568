package io.stackreq.join;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a join took from its inputs, and what it left out before matching.
 *
 * @param samplesFormat   {@code perf} or {@code jfr} ({@link io.stackreq.model.SampleSource#format()}), null without
 *                        samples
 * @param requester       the library whose stack-trace events were joined ("" for events that name none)
 * @param otherRequesters the events of every other requester, left out, by requester
 * @param undelegated     samples whose profiler walked the stack itself instead of requesting it (userData 0), left
 *                        out
 */
public record JoinScope(String samplesFormat, String requester, Map<String, Long> otherRequesters,
        long undelegated) {

    public JoinScope {
        otherRequesters = Collections.unmodifiableMap(new TreeMap<>(otherRequesters));
    }

    /** Events of other requesters, left out. */
    public long otherRequesterEvents() {
        return otherRequesters.values().stream().mapToLong(Long::longValue).sum();
    }
}
