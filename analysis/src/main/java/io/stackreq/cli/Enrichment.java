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
import io.stackreq.join.PreparedJoin;
import io.stackreq.model.InputException;
import io.stackreq.output.EnrichedRecordingWriter;

/** Runs a join into an {@link EnrichedRecordingWriter}, plus any other listeners. */
final class Enrichment {
    private Enrichment() {
    }

    /** @return the number of events written */
    static long write(JoinInputs inputs, Path output) throws IOException {
        try (PreparedJoin join = JoinRunner.prepare(inputs)) {
            return run(join, output, List.of()).written();
        }
    }

    record Result(JoinOutcome outcome, long written) {
    }

    /** @param others the join's other listeners */
    static Result run(PreparedJoin join, Path output, List<JoinListener> others) throws IOException {
        long[] span = JoinOutputs.timeSpan(join.recording());
        EnrichedRecordingWriter writer;
        try {
            writer = new EnrichedRecordingWriter(output, join.header(), span[0], span[1]);
        } catch (IOException e) {
            throw new InputException("cannot write " + output + ": " + e.getMessage(), e);
        }
        List<JoinListener> listeners = new ArrayList<>(others);
        listeners.add(writer);
        JoinOutcome outcome = null;
        try {
            outcome = join.join(listeners);
        } finally {
            try {
                writer.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (outcome == null) {
                // The join failed: a half-made recording would only mislead.
                Files.deleteIfExists(output);
            }
        }
        return new Result(outcome, writer.written());
    }
}
