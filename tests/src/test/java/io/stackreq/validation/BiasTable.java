package io.stackreq.validation;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.stackreq.validation.bias.BiasBenchmark.Cell;
import io.stackreq.validation.bias.BiasBenchmark.Result;
import io.stackreq.validation.bias.Profiler;

/** The bias benchmark's markdown table for one JDK, and the per-cell details behind it. */
public final class BiasTable {
    private BiasTable() {
    }

    public static String markdown(Result result, double seconds) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT,
                "#### Bias — %s (%.1f s of CPU per workload): share of the workload thread's samples on the hot line "
                        + "(the truth that profiler's own run measured; error = share − truth, points)%n%n",
                result.jdk(), seconds));
        boolean withNative = result.profilers().contains(Profiler.STACKREQ_NATIVE);
        List<String> header = new ArrayList<>(List.of("workload", "hot line"));
        result.profilers().forEach(p -> header.add(p.label()));
        if (withNative) {
            header.add("native=on: top frame of the hot samples");
        }
        row(out, header);
        row(out, header.stream().map(h -> "---").toList());
        for (String workload : result.workloads()) {
            List<String> cells = new ArrayList<>(List.of(workload, "`" + result.hotLines().get(workload) + "`"));
            for (Profiler profiler : result.profilers()) {
                cells.add(cell(result.cell(profiler, workload)));
            }
            if (withNative) {
                Cell nativeOn = result.cell(Profiler.STACKREQ_NATIVE, workload);
                cells.add(nativeOn == null || nativeOn.hot() == 0 ? "-"
                        : "`" + nativeOn.commonestHotTop().replaceFirst(" ([0-9.]+%)$", "` $1"));
            }
            row(out, cells);
        }
        List<String> failed = new ArrayList<>(List.of("failed samples", ""));
        List<String> samples = new ArrayList<>(List.of("samples", ""));
        for (Profiler profiler : result.profilers()) {
            int total = 0;
            int failures = 0;
            for (String workload : result.workloads()) {
                Cell cell = result.cell(profiler, workload);
                if (cell != null) {
                    total += cell.samples();
                    failures += cell.failed();
                }
            }
            samples.add(Integer.toString(total));
            failed.add(profiler == Profiler.JFR_EXECUTION_SAMPLE ? "not recorded"
                    : total == 0 ? "-" : String.format(Locale.ROOT, "%.2f%%", 100.0 * failures / total));
        }
        if (withNative) {
            failed.add("");
            samples.add("");
        }
        row(out, failed);
        row(out, samples);
        return out.toString();
    }

    /**
     * One profiler on one workload: its share beside the truth its own run measured (each profiler
     * runs in a JVM of its own, whose workload measures its own CPU time), and the error against it.
     */
    static String cell(Cell cell) {
        if (cell == null) {
            return "-";
        }
        if (cell.samples() == 0) {
            return String.format(Locale.ROOT, "no samples (truth %.1f%%)", cell.truth().percent());
        }
        return String.format(Locale.ROOT, "%.1f%% (truth %.1f%%, %+.1f)", cell.share(), cell.truth().percent(),
                cell.error());
    }

    /** Where each profiler put each workload's samples (top places), for logs. */
    public static String details(Result result) {
        StringBuilder out = new StringBuilder();
        for (String workload : result.workloads()) {
            for (Profiler profiler : result.profilers()) {
                Cell cell = result.cell(profiler, workload);
                if (cell == null) {
                    continue;
                }
                out.append(String.format(Locale.ROOT,
                        "%s %-10s %-24s truth %5.1f%% share %5.1f%% samples %5d failed %4d: %s%n",
                        result.jdk(), workload, profiler.label(), cell.truth().percent(), cell.share(), cell.samples(),
                        cell.failed(), cell.topPlaces(4)));
                if (profiler == Profiler.STACKREQ_NATIVE) {
                    out.append(String.format(Locale.ROOT, "%s %-10s %-24s hot samples' top frames: %s%n", result.jdk(),
                            workload, profiler.label(), cell.hotTops()));
                }
            }
        }
        return out.toString();
    }

    static void row(StringBuilder out, List<String> cells) {
        out.append("| ").append(String.join(" | ", cells)).append(" |\n");
    }
}
