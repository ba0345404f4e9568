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
 * @param overflow which event overflowed, with what period, on which CPU, and what the stack request returned
 * @param deltas   every group member's count since the previous sample, by event name
 */
public record Sample(long line, long userData, long tid, long time, Overflow overflow, Map<String, Long> deltas) {
    /** The tid of a JFR sample: JFR records the thread, which JMC core gives without its OS id. */
    public static final long UNKNOWN_TID = -1;

    /**
     * What a sample has that repeats from one sample to the next: the readers share one instance
     * among the samples that have the same (those of a CPU, or all of a JFR event type), so that a
     * sample is still one object where millions of them are read.
     *
     * @param event  the leader event that overflowed, or the JFR event type
     * @param period the leader's sample period
     * @param cpu    CPU the thread ran on, or -1 when not recorded
     * @param error  the jvmtiError RequestStackTrace returned; 0 means accepted
     */
    public record Overflow(String event, long period, int cpu, int error) {
        /** Whether this is the overflow these values describe, without making one to compare. */
        public boolean is(String otherEvent, long otherPeriod, int otherCpu, int otherError) {
            return period == otherPeriod && cpu == otherCpu && error == otherError && event.equals(otherEvent);
        }
    }

    public Sample {
        deltas = Collections.unmodifiableMap(new LinkedHashMap<>(deltas));
    }

    public String event() {
        return overflow.event();
    }

    public long period() {
        return overflow.period();
    }

    public int cpu() {
        return overflow.cpu();
    }

    public int error() {
        return overflow.error();
    }

    public boolean accepted() {
        return overflow.error() == 0;
    }
}
