package io.stackreq.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.stackreq.jfr.ChunkContext;
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

    /** @return the number of samples written */
    static long write(JoinInputs inputs, Path output) throws IOException {
        try (PreparedJoin join = JoinRunner.prepare(inputs)) {
            return run(join, output, List.of()).written();
        }
    }

    record Result(JoinOutcome outcome, long written) {
    }

    /** Writes {@code output}, a recording of stackreq's samples alone; @param others the join's other listeners */
    static Result run(PreparedJoin join, Path output, List<JoinListener> others) throws IOException {
        EnrichedRecordingWriter writer;
        try {
            writer = new EnrichedRecordingWriter(output, join.header(), join.recording().firstEventNanos(),
                    ChunkContext.beside(join.recording().file()));
        } catch (IOException e) {
            throw new InputException("cannot write " + output + ": " + e.getMessage(), e);
        }
        try {
            return join(join, writer, others);
        } catch (RuntimeException e) {
            // The join failed: a half-made recording would only mislead.
            Files.deleteIfExists(output);
            throw e;
        }
    }

    private static Result join(PreparedJoin join, EnrichedRecordingWriter writer, List<JoinListener> others) {
        List<JoinListener> listeners = new ArrayList<>(others);
        listeners.add(writer);
        JoinOutcome outcome;
        try {
            outcome = join.join(listeners);
        } finally {
            try {
                writer.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return new Result(outcome, writer.written());
    }
}
