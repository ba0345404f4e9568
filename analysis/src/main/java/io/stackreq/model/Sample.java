package io.stackreq.model;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One counter overflow from the perf agent's sample file.
 *
 * @param line     line number in the sample file (1-based), for messages
 * @param userData the value passed to RequestStackTrace: the join key
 * @param tid      OS thread id the overflow was delivered to
 * @param time     CLOCK_MONOTONIC nanoseconds
 * @param cpu      CPU the thread ran on, or -1 when not recorded
 * @param event    the leader event that overflowed
 * @param period   the leader's sample period
 * @param deltas   every group member's count since the previous sample, by event name
 * @param error    the jvmtiError RequestStackTrace returned; 0 means accepted
 */
public record Sample(long line, long userData, long tid, long time, int cpu, String event, long period,
        Map<String, Long> deltas, int error) {

    public Sample {
        deltas = Collections.unmodifiableMap(new LinkedHashMap<>(deltas));
    }

    public boolean accepted() {
        return error == 0;
    }
}
