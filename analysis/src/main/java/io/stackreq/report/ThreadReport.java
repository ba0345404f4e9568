package io.stackreq.report;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One thread ({@code --threads}); percentages are of the whole report's weight, so threads compare
 * with each other.
 *
 * @param thread       the thread's name (Java name, else OS name), or "tid N" when its events name none
 * @param osThreadIds  the OS thread ids of its samples, ascending; empty without a sample file
 * @param kind         "Java", "JVM-internal" (a thread JVMTI does not show: the JVM's own or a native
 *                     one, Java id 0) or "unknown" (the recording has no Java thread id)
 * @param samples      matched samples (events without a sample file)
 */
@JsonPropertyOrder({"thread", "osThreadIds", "kind", "samples", "totalWeight", "totalPct", "entries"})
public record ThreadReport(String thread, List<Long> osThreadIds, String kind, long samples, long totalWeight,
        double totalPct, List<ReportEntry> entries) {
    public ThreadReport {
        osThreadIds = List.copyOf(osThreadIds);
    }
}
