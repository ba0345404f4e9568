package io.stackreq.report;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

import io.stackreq.join.JoinScope;
import io.stackreq.model.JvmSamples;
import io.stackreq.model.SampleSource;

/** The human-readable report: a table of entries, then the join quality. */
public final class TextReportFormatter {

    public String format(Report report) {
        StringBuilder out = new StringBuilder();
        Report.Legend legend = report.legend();
        Report.Tables tables = report.tables();
        out.append("Recording  ").append(report.inputs().recording()).append('\n');
        if (report.inputs().samplesFile() != null) {
            out.append("Samples    ").append(report.inputs().samplesFile()).append('\n');
            out.append("Metric     ").append(legend.metric()).append(": ")
                    .append(weight(report.totals().totalWeight(), legend.unit())).append(" in ")
                    .append(count(report.totals().matched())).append(" matched samples\n");
        } else {
            out.append("Metric     stack-trace events (no --samples): ")
                    .append(count(report.totals().totalWeight())).append(" with a stack\n");
        }
        if (report.jfrSamples() != null) {
            out.append("JFR        ").append(report.jfrSamples().entrySet().stream()
                    .map(type -> count(type.getValue()) + " " + type.getKey()).collect(Collectors.joining(", ")))
                    .append(" (the JVM's own samples; ")
                    .append(jfrColumns(report.jfrSamples().keySet()).stream().collect(Collectors.joining(" and ")))
                    .append(": what JFR alone gives each row, of its samples)\n");
        }
        out.append('\n');
        table(out, tables.entries(), legend);
        if (tables.threads() != null) {
            threads(out, tables.threads(), legend);
            for (ThreadReport thread : tables.threads()) {
                out.append('\n').append("Thread ").append(thread.identity().thread()).append(": ")
                        .append(pct(thread.totalPct())).append(" (").append(weight(thread.totalWeight(), legend.unit()))
                        .append(")\n");
                table(out, thread.entries(), legend);
            }
        }
        out.append('\n');
        quality(out, report);
        return out.toString();
    }

    /** One line per thread, by weight: share, weight, samples, OS ids, kind, name. */
    private void threads(StringBuilder out, List<ThreadReport> threads, Report.Legend legend) {
        out.append('\n').append("Threads\n");
        out.append(String.format(Locale.ROOT, "%8s %12s %9s %-12s %-12s  %s%n", "share", legend.unit(), "samples",
                "OS id", "kind", "thread"));
        for (ThreadReport thread : threads) {
            ThreadReport.Identity identity = thread.identity();
            String ids = identity.osThreadIds().isEmpty() ? "-"
                    : identity.osThreadIds().stream().map(String::valueOf).collect(Collectors.joining(","));
            out.append(String.format(Locale.ROOT, "%8s %12s %9s %-12s %-12s  %s%n", pct(thread.totalPct()),
                    weight(thread.totalWeight(), legend.unit()), count(thread.samples()), ids, identity.kind(),
                    identity.thread()));
        }
    }

    private void table(StringBuilder out, List<ReportEntry> entries, Report.Legend legend) {
        boolean stacks = "stack".equals(legend.by());
        List<String> jfrTypes = entries.isEmpty() || entries.get(0).jfr() == null ? List.of()
                : List.copyOf(entries.get(0).jfr().keySet());
        if (stacks) {
            out.append(String.format(Locale.ROOT, "%8s %12s  %s%n", "share", legend.unit(), "stack (top frame first)"));
        } else {
            out.append(String.format(Locale.ROOT, "%8s %12s %8s %12s", "self%", "self", "total%", "total"));
            for (String column : jfrColumns(jfrTypes)) {
                out.append(' ').append(column);
            }
            out.append("  ").append("line".equals(legend.by()) ? "method:line" : "method").append('\n');
        }
        if (entries.isEmpty()) {
            out.append("  (no matched samples)\n");
        }
        for (ReportEntry entry : entries) {
            ReportEntry.Weights weights = entry.weights();
            if (stacks) {
                out.append(String.format(Locale.ROOT, "%8s %12s  %s%n", pct(weights.selfPct()),
                        weight(weights.self(), legend.unit()), entry.stack().get(0)));
                for (String frame : entry.stack().subList(1, entry.stack().size())) {
                    out.append(String.format(Locale.ROOT, "%8s %12s    at %s%n", "", "", frame));
                }
            } else {
                String name = entry.line() == null ? entry.name() : entry.name() + ":" + entry.line();
                out.append(String.format(Locale.ROOT, "%8s %12s %8s %12s", pct(weights.selfPct()),
                        weight(weights.self(), legend.unit()), pct(weights.totalPct()),
                        weight(weights.total(), legend.unit())));
                List<String> columns = jfrColumns(jfrTypes);
                for (int i = 0; i < jfrTypes.size(); i++) {
                    ReportEntry.JfrShare share = entry.jfr().get(jfrTypes.get(i));
                    out.append(String.format(Locale.ROOT, " %" + columns.get(2 * i).length() + "s %"
                            + columns.get(2 * i + 1).length() + "s", pct(share.selfPct()), pct(share.totalPct())));
                }
                out.append("  ").append(name).append('\n');
            }
        }
    }

    private void quality(StringBuilder out, Report report) {
        Report.Quality q = report.quality();
        Report.Quality.Samples samples = q.ofSamples();
        Report.Quality.SetAside aside = q.setAside();
        Report.Quality.Events events = q.ofEvents();
        Report.Quality.Losses losses = q.losses();
        out.append("Join quality\n");
        if (report.inputs().samplesFile() != null) {
            out.append("  samples  ").append(count(samples.samples())).append(": ").append(count(samples.matched()))
                    .append(" matched (").append(pct(samples.matchedPct())).append(" of accepted), ")
                    .append(count(samples.noEvent())).append(" with no event, ").append(count(samples.failedEvent()))
                    .append(" whose event has no stack, ").append(count(aside.rejected())).append(" rejected");
            if (!aside.rejectedByError().isEmpty()) {
                out.append(" (");
                String separator = "";
                for (Map.Entry<String, Long> error : aside.rejectedByError().entrySet()) {
                    out.append(separator).append("error ").append(error.getKey()).append(": ")
                            .append(count(error.getValue()));
                    separator = ", ";
                }
                out.append(')');
            }
            if (aside.duplicateSamples() > 0) {
                out.append(", ").append(count(aside.duplicateSamples())).append(" repeating a userData");
            }
            if (fromJfr(report)) {
                out.append("; ").append(count(report.scope().undelegated()))
                        .append(" more not delegated (userData 0) and left out");
            }
            out.append('\n');
            out.append("  events   ").append(count(events.events())).append(": ")
                    .append(count(events.eventsWithoutSample()))
                    .append(" with no sample\n");
        } else {
            out.append("  events   ").append(count(events.events())).append(": ").append(count(samples.matched()))
                    .append(" with a stack, ").append(count(samples.failedEvent())).append(" failed\n");
        }
        requester(out, report.scope());
        out.append("  biased   ").append(pct(q.bias().biasedPct()))
                .append(" of attributed stacks were taken at a safepoint\n");
        out.append("  dropped  ").append(losses.droppedInJvm() < 0 ? "unknown (no stackreq.RequestStatistics event)"
                : count(losses.droppedInJvm()) + " accepted requests lost in the JVM");
        if (report.inputs().samplesFile() != null && !fromJfr(report)) {
            out.append("; ").append(losses.agentLost() < 0 ? "perf agent losses unknown (sample file has no end line)"
                    : count(losses.agentLost()) + " samples lost by the perf agent");
            if (losses.sampleFileCutOff()) {
                out.append("; the sample file's last line was cut off and skipped");
            }
        }
        out.append('\n');
    }

    /** Whose stack-trace events were joined, and how many of other requesters were not. */
    private static void requester(StringBuilder out, JoinScope scope) {
        out.append("  requester ");
        if (scope.otherRequesters().isEmpty()) {
            out.append(scope.requester().isEmpty() ? "not named by the events (all joined)"
                    : scope.requester() + " (all events are its)");
        } else {
            out.append(scope.requester().isEmpty() ? "unnamed (--requester '')" : scope.requester()).append("; ")
                    .append(count(scope.otherRequesterEvents())).append(" events of other requesters left out (")
                    .append(scope.otherRequesters().entrySet().stream()
                            .map(other -> (other.getKey().isEmpty() ? "unnamed" : other.getKey()) + ": "
                                    + count(other.getValue()))
                            .collect(Collectors.joining(", ")))
                    .append(")");
        }
        out.append('\n');
    }

    /** The column headings of the JVM's samplers' shares: two per sample type. */
    private static List<String> jfrColumns(Collection<String> types) {
        List<String> columns = new ArrayList<>();
        for (String type : types) {
            String sampler = type.equals(JvmSamples.CPU_TIME_SAMPLE) ? "JFR cpu-time" : "JFR";
            columns.add(sampler + " self%");
            columns.add(sampler + " total%");
        }
        return columns;
    }

    /** Whether the samples are a JFR file's events, which have no perf agent end line nor lines to cut off. */
    private static boolean fromJfr(Report report) {
        return SampleSource.JFR.equals(report.scope().samplesFormat());
    }

    static String pct(double percent) {
        return String.format(Locale.ROOT, "%.1f%%", percent);
    }

    static String count(long value) {
        return String.format(Locale.ROOT, "%,d", value);
    }

    /** Nanoseconds as seconds or milliseconds; counts with thousands separators. */
    static String weight(long value, String unit) {
        if (!"ns".equals(unit)) {
            return count(value);
        }
        if (value >= 1_000_000_000L) {
            return String.format(Locale.ROOT, "%.3f s", value / 1e9);
        }
        return String.format(Locale.ROOT, "%.3f ms", value / 1e6);
    }
}
