package io.stackreq.report;

import java.util.List;

/**
 * The entries of one thread ({@code --threads}); percentages are of the whole report's weight,
 * so threads compare with each other.
 */
public record ThreadReport(String thread, long totalWeight, double totalPct, List<ReportEntry> entries) {
}
