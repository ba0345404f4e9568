package io.stackreq.report;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonUnwrapped;

/**
 * One thread ({@code --threads}); percentages are of the whole report's weight, so threads compare
 * with each other.
 *
 * @param identity    which thread; in JSON its fields stand beside the others, not in an object of their own
 * @param samples     matched samples (events without a sample file)
 * @param totalWeight weight of the thread's matched samples
 * @param totalPct    totalWeight as a percentage of the report's total weight
 * @param entries     the thread's rows, as the report's
 */
@JsonPropertyOrder({"identity", "samples", "totalWeight", "totalPct", "entries"})
public record ThreadReport(@JsonUnwrapped Identity identity, long samples, long totalWeight, double totalPct,
        List<ReportEntry> entries) {

    /**
     * @param thread      the thread's name (Java name, else OS name), or "tid N" when its events name none
     * @param osThreadIds the OS thread ids of its samples, ascending; empty without a sample file
     * @param kind        "Java", "JVM-internal" (a thread JVMTI does not show: the JVM's own or a native
     *                    one, Java id 0) or "unknown" (the recording has no Java thread id)
     */
    @JsonPropertyOrder({"thread", "osThreadIds", "kind"})
    public record Identity(String thread, List<Long> osThreadIds, String kind) {
        public Identity {
            osThreadIds = List.copyOf(osThreadIds);
        }
    }
}
