package io.stackreq.model;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One counter overflow from the perf agent's sample file, or one sample event of a JFR file.
 *
 * @param line     line number in the sample file (1-based), or the event's number among the sample
 *                 events of a JFR file, for messages
 * @param userData the value passed to RequestStackTrace: the join key
 * @param tid      OS thread id the overflow was delivered to, or {@link #UNKNOWN_TID}
 * @param time     CLOCK_MONOTONIC nanoseconds (perf agent), nanoseconds since the epoch (JFR)
 * @param cpu      CPU the thread ran on, or -1 when not recorded
 * @param event    the leader event that overflowed, or the JFR event type
 * @param period   the leader's sample period
 * @param deltas   every group member's count since the previous sample, by event name
 * @param error    the jvmtiError RequestStackTrace returned; 0 means accepted
 */
public record Sample(long line, long userData, long tid, long time, int cpu, String event, long period,
        Map<String, Long> deltas, int error) {
    /** The tid of a JFR sample: JFR records the thread, which JMC core gives without its OS id. */
    public static final long UNKNOWN_TID = -1;

    public Sample {
        deltas = Collections.unmodifiableMap(new LinkedHashMap<>(deltas));
    }

    public boolean accepted() {
        return error == 0;
    }
}
