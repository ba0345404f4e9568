package io.stackreq.model;

import java.util.List;

/**
 * The sample file's first line ({@code "type":"start"}).
 *
 * @param engine "perf" or "cpu-timer", or "jfr" for a JFR file's samples
 * @param leader the event whose overflows trigger samples
 * @param events the leader and every group member, leader first
 * @param period the leader's sample period, with its unit
 * @param pid    the profiled process
 * @param clock  the clock of the {@code time} fields
 */
public record SampleFileHeader(String engine, String leader, List<String> events, SamplePeriod period, long pid,
        String clock) {

    /**
     * A period means something only with its unit: 1000000 is 1 ms of task-clock, or a million
     * page faults.
     *
     * @param value the leader's sample period
     * @param unit  "ns" for time events, "events" (or similar) for counts
     */
    public record SamplePeriod(long value, String unit) {
        public boolean isTime() {
            return "ns".equals(unit);
        }
    }

    public SampleFileHeader {
        events = List.copyOf(events);
    }

    public boolean isTimeBased() {
        return period.isTime();
    }

    /**
     * The events whose values a profile carries beside its sample count: all but a JFR file's
     * {@link JfrSampleSpec#COUNT}, which is that count already (a profile with both would weigh
     * the same thing twice under one name).
     */
    public List<String> valueEvents() {
        return SampleSource.JFR.equals(engine) ? events.stream().filter(event -> !event.equals(JfrSampleSpec.COUNT))
                .toList() : events;
    }
}
