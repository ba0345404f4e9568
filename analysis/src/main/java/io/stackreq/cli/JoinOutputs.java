package io.stackreq.cli;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

import io.stackreq.export.JoinedProfileBuilder;
import io.stackreq.flame.FlameGraphHtmlWriter;
import io.stackreq.join.JoinOutcome;
import io.stackreq.join.JoinQuality;
import io.stackreq.join.PreparedJoin;
import io.stackreq.model.JvmSamples;
import io.stackreq.model.RecordingContents;
import io.stackreq.output.OutputFiles;
import io.stackreq.tree.CallTree;

/** Outputs several commands make from a join (report, flame, profile, export, enrich): the flame graph, the stack profile. */
final class JoinOutputs {
    private static final int JFR_TOP_METHODS = 3;

    private JoinOutputs() {
    }

    static void writeFlameGraph(Path file, CallTree tree, JoinOutcome outcome) throws IOException {
        JoinQuality quality = outcome.quality();
        String source = outcome.samplesFile() == null
                ? outcome.recording().file().getFileName() + " (stack-trace events)"
                : outcome.recording().file().getFileName() + " + " + outcome.samplesFile().getFileName();
        String details = String.format(Locale.ROOT, "%s: %s, %,d samples matched (%.1f%%)", outcome.metric().name(),
                source, quality.matched(), outcome.samplesFile() == null ? 100.0 : quality.matchedPercent());
        FlameGraphHtmlWriter.Header header = new FlameGraphHtmlWriter.Header(
                "stackreq flame graph: " + outcome.metric().name(), outcome.metric().name(), outcome.metric().unit(),
                details, jfrContrast(outcome.recording().jvmSamples(), tree));
        try (BufferedWriter out = OutputFiles.newWriter(file)) {
            new FlameGraphHtmlWriter().write(tree, header, out);
        }
    }

    /**
     * What JFR's own sampler said of the same run, beside what this graph says: the methods JFR's
     * samples most often had on top, each with its share of them and its share of this graph's
     * weight; null when the recording has no JFR samples.
     */
    static String jfrContrast(JvmSamples samples, CallTree tree) {
        Map<String, Long> counts = samples.counts();
        if (counts.isEmpty()) {
            return null;
        }
        String type = counts.keySet().iterator().next();
        long jfrTotal = counts.get(type);
        Map<String, Long> selfByName = new HashMap<>();
        Deque<CallTree.Node> pending = new ArrayDeque<>(tree.root().children());
        while (!pending.isEmpty()) {
            CallTree.Node node = pending.pop();
            if (node.frame() != null) {
                selfByName.merge(node.name(), node.self(), Long::sum);
            }
            pending.addAll(node.children());
        }
        long total = tree.root().total();
        String tops = samples.tally(type, tree.key()::of).entrySet().stream()
                .filter(entry -> entry.getValue().self() > 0)
                .sorted(Comparator.comparingLong((Map.Entry<String, JvmSamples.Tally> entry) -> entry.getValue().self())
                        .reversed().thenComparing(Map.Entry::getKey))
                .limit(JFR_TOP_METHODS)
                .map(entry -> String.format(Locale.ROOT, "%s %.1f%% (stackreq %.1f%%)", entry.getKey(),
                        100.0 * entry.getValue().self() / jfrTotal,
                        total == 0 ? 0 : 100.0 * selfByName.getOrDefault(entry.getKey(), 0L) / total))
                .collect(Collectors.joining(", "));
        return String.format(Locale.ROOT, "JFR alone, by top frame (its %,d %s): %s", jfrTotal, type, tops);
    }

    /** A listener that sums the join's matched samples into a stack profile (its {@code profile()}). */
    static JoinedProfileBuilder stackProfile(PreparedJoin join) {
        long[] span = timeSpan(join.recording());
        return new JoinedProfileBuilder(join.header(),
                join.samplesFile() == null ? null : join.samplesFile().toString(), span[0], span[1]);
    }

    /** Earliest event time and the span to the latest: the enriched recording's start and duration. */
    static long[] timeSpan(RecordingContents recording) {
        return new long[] {recording.firstEventNanos(), recording.lastEventNanos() - recording.firstEventNanos()};
    }
}
