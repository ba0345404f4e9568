package io.stackreq.validation;

import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.stackreq.validation.oracle.OracleCheck.Layer;
import io.stackreq.validation.oracle.OracleCheck.Tally;
import io.stackreq.validation.oracle.OracleRun.Result;

/** The oracle's markdown table for one JDK, and the mismatch examples behind it. */
public final class OracleTable {
    private OracleTable() {
    }

    public static String markdown(Result result, double seconds) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT,
                "#### Oracle — %s (%.1f s per workload): stack traces vs. shadow stacks%n%n",
                result.jdk(), seconds));
        BiasTable.row(out, List.of("workload", "layer", "samples", "matched",
                "of which in transition / in instrumentation / JIT scope",
                "mismatched", "failed", "match (of traces)", "type (frames right of checked)"));
        BiasTable.row(out, List.of("---", "---", "---:", "---:", "---:", "---:", "---:", "---:", "---:"));
        for (String workload : result.workloads()) {
            for (Layer layer : result.tallies().keySet()) {
                Tally tally = result.tally(layer, workload);
                BiasTable.row(out, List.of(workload, layer.label, Integer.toString(tally.samples),
                        Integer.toString(tally.matched()),
                        tally.transition + " / " + tally.instrumentation + " / " + tally.jitScope,
                        Integer.toString(tally.mismatched), tally.failedWithoutJavaFrames == 0
                                ? Integer.toString(tally.failed)
                                : tally.failed + " (" + tally.failedWithoutJavaFrames + " without Java frames)",
                        tally.matched() + tally.mismatched == 0 ? "-"
                                : String.format(Locale.ROOT, "%.2f%%", tally.matchPercent()),
                        tally.frameTypes.summary()));
            }
        }
        return out.toString();
    }

    public static String examples(Result result) {
        StringBuilder out = new StringBuilder();
        result.summaries().forEach(s -> out.append(result.jdk()).append(' ').append(s).append('\n'));
        result.tallies().forEach((layer, byWorkload) -> byWorkload.forEach((workload, tally) -> {
            for (String example : tally.examples) {
                out.append(result.jdk()).append(' ').append(workload).append(" [").append(layer.label)
                        .append("] mismatch: ")
                        .append(example).append('\n');
            }
            if (tally.onRecordBoundary > 0) {
                out.append(result.jdk()).append(' ').append(workload).append(" [").append(layer.label)
                        .append("] on a debug-record boundary: ").append(tally.onRecordBoundary).append(" of ")
                        .append(tally.matched() + tally.mismatched).append(" stacks, ")
                        .append(tally.onRecordBoundaryAtOrAfter)
                        .append(" of them with the frames of the record at or after the PC\n");
            }
            if (!tally.byWalk.isEmpty()) {
                out.append(result.jdk()).append(' ').append(workload).append(" [").append(layer.label)
                        .append("] by walk: ").append(tally.byWalk).append('\n');
            }
            appendTop(out, result.jdk() + " " + workload + " [" + layer.label + "] failed at: ", tally.failedAt);
            appendTop(out, result.jdk() + " " + workload + " [" + layer.label + "] left to AsyncGetCallTrace at: ",
                    tally.leftToAsgctAt);
            for (String example : tally.frameTypes.examples) {
                out.append(result.jdk()).append(' ').append(workload).append(" [").append(layer.label)
                        .append("] wrong frame type: ").append(example).append('\n');
            }
        }));
        return out.toString();
    }

    private static void appendTop(StringBuilder out, String prefix, Map<String, Integer> counts) {
        counts.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed()).limit(40)
                .forEach(e -> out.append(prefix).append(e.getValue()).append(' ').append(e.getKey()).append('\n'));
    }
}
