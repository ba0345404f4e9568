package io.stackreq.cli;

import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.stream.Collectors;

import io.stackreq.jfr.RecordingRewriter;
import io.stackreq.model.InputException;
import io.stackreq.output.OutputFiles;

/**
 * The JVM's whole recording with its own CPU samples replaced by stackreq's: its chunks without
 * them, then the chunk of stackreq's samples ({@code profile.jfr}'s). One file for JMC, whose
 * every page then works and whose Method Profiling page shows the unbiased samples.
 */
final class Unbiasing {
    static final String FILE = "recording-unbiased.jfr";

    private Unbiasing() {
    }

    /** What the rewrite did, for the line that names the file. */
    record Summary(RecordingRewriter.Removed removed, long samples) {
        String describe() {
            String replaced = removed.samples().isEmpty() ? "which had no CPU samples of its own, with"
                    : "its " + removed.samples().entrySet().stream()
                            .map(entry -> String.format(Locale.ROOT, "%,d %s", entry.getValue(), entry.getKey()))
                            .collect(Collectors.joining(" and ")) + " replaced by";
            return String.format(Locale.ROOT, "the JVM's recording, %s stackreq's %,d unbiased samples; every "
                    + "other event as it was", replaced, samples);
        }
    }

    /**
     * Refuses an output that is the recording (or the chunk) itself: the input is never written.
     *
     * @throws InputException when {@code output} is one of the inputs
     */
    static void checkOutput(Path output, Path... inputs) {
        for (Path input : inputs) {
            try {
                if (Files.exists(output) && Files.isSameFile(output, input)) {
                    throw new InputException("refusing to write " + output + ": it is the input " + input
                            + " (stackreq never writes over a recording it reads)");
                }
            } catch (IOException e) {
                throw new InputException("cannot write " + output + ": " + e.getMessage(), e);
            }
        }
    }

    /**
     * Writes {@code output}: {@code recording}'s chunks without the JVM's CPU samples, then
     * {@code samplesChunk} (a recording of stackreq's samples written beside it). A failure leaves
     * no file.
     *
     * @throws InputException when the recording cannot be rewritten (cut, corrupt, a version
     *                        stackreq does not know) or the output cannot be written
     */
    static RecordingRewriter.Removed write(Path recording, Path samplesChunk, Path output) {
        checkOutput(output, recording, samplesChunk);
        SeekableByteChannel out = OutputFiles.newChannel(output);
        boolean done = false;
        try (out) {
            RecordingRewriter.Removed removed = RecordingRewriter.copyWithoutSamples(recording, out);
            RecordingRewriter.append(samplesChunk, out);
            done = true;
            return removed;
        } catch (IOException e) {
            throw new InputException("cannot write " + output + ": " + e.getMessage(), e);
        } finally {
            if (!done) {
                deleteQuietly(output);
            }
        }
    }

    static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // What could not be deleted is named by the failure that led here.
        }
    }
}
