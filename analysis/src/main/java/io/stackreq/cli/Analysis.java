package io.stackreq.cli;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;

import io.stackreq.export.JoinedProfileBuilder;
import io.stackreq.export.StackProfile;
import io.stackreq.flame.FlameGraphHtmlWriter;
import io.stackreq.join.JoinListener;
import io.stackreq.join.JoinOutcome;
import io.stackreq.join.JoinQuality;
import io.stackreq.join.JoinRunner;
import io.stackreq.model.RecordingContents;
import io.stackreq.output.OutputFiles;
import io.stackreq.tree.CallTree;

/** Steps several commands share (report, flame, profile). */
final class Analysis {
    private Analysis() {
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
        try (BufferedWriter out = newWriter(file)) {
            new FlameGraphHtmlWriter().write(tree, header, out);
        }
    }

    /**
     * Listeners for a join that sums the matched samples into a {@link StackProfile} (which
     * {@code profile} receives once the sample file's header is known) besides {@code others}.
     */
    static JoinRunner.ListenerFactory withStackProfile(Path samplesFile, List<JoinListener> others,
            AtomicReference<StackProfile> profile) {
        return (recording, metric, header) -> {
            long[] span = timeSpan(recording);
            JoinedProfileBuilder builder = new JoinedProfileBuilder(header,
                    samplesFile == null ? null : samplesFile.toString(), span[0], span[1]);
            profile.set(builder.profile());
            List<JoinListener> listeners = new ArrayList<>(others);
            listeners.add(builder);
            return listeners;
        };
    }

    static BufferedWriter newWriter(Path file) {
        return OutputFiles.newWriter(file);
    }

    /** Earliest event time and the span to the latest: the enriched recording's start and duration. */
    static long[] timeSpan(RecordingContents recording) {
        return new long[] {recording.firstEventNanos(), recording.lastEventNanos() - recording.firstEventNanos()};
    }
}
