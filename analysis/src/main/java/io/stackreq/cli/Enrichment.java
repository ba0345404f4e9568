package io.stackreq.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.stackreq.join.JoinInputs;
import io.stackreq.join.JoinListener;
import io.stackreq.join.JoinOutcome;
import io.stackreq.join.JoinRunner;
import io.stackreq.model.InputException;
import io.stackreq.output.EnrichedRecordingWriter;

/** Runs a join into an {@link EnrichedRecordingWriter}, plus any other listeners. */
final class Enrichment {
    private Enrichment() {
    }

    /** @return the number of events written */
    static long write(JoinInputs inputs, Path output) throws IOException {
        return run(inputs, output, (contents, metric, header) -> List.of()).written;
    }

    record Result(JoinOutcome outcome, long written) {
    }

    /** @param others the join's other listeners, made once the sample file's header is known */
    static Result run(JoinInputs inputs, Path output, JoinRunner.ListenerFactory others)
            throws IOException {
        EnrichedRecordingWriter[] writer = new EnrichedRecordingWriter[1];
        JoinOutcome outcome = null;
        try {
            outcome = JoinRunner.run(inputs, (contents, metric, header) -> {
                long[] span = Analysis.timeSpan(contents);
                try {
                    writer[0] = new EnrichedRecordingWriter(output, header, span[0], span[1]);
                } catch (IOException e) {
                    throw new InputException("cannot write " + output + ": " + e.getMessage(), e);
                }
                List<JoinListener> listeners = new ArrayList<>(others.create(contents, metric, header));
                listeners.add(writer[0]);
                return listeners;
            });
        } finally {
            if (writer[0] != null) {
                try {
                    writer[0].close();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                if (outcome == null) {
                    // The join failed: a half-made recording would only mislead.
                    Files.deleteIfExists(output);
                }
            }
        }
        return new Result(outcome, writer[0].written());
    }
}
