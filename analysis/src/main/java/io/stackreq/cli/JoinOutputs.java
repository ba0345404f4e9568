package io.stackreq.cli;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;

import io.stackreq.export.JoinedProfileBuilder;
import io.stackreq.flame.FlameGraphHtmlWriter;
import io.stackreq.join.JoinOutcome;
import io.stackreq.join.JoinQuality;
import io.stackreq.join.PreparedJoin;
import io.stackreq.model.RecordingContents;
import io.stackreq.output.OutputFiles;
import io.stackreq.tree.CallTree;

/** Outputs several commands make from a join (report, flame, profile, export, enrich): the flame graph, the stack profile. */
final class JoinOutputs {
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
                details);
        try (BufferedWriter out = OutputFiles.newWriter(file)) {
            new FlameGraphHtmlWriter().write(tree, header, out);
        }
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
