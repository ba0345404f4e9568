package io.stackreq.cli;

import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.stream.Collectors;

import io.stackreq.jfr.ChunkContext;
import io.stackreq.jfr.RecordingRewriter;
import io.stackreq.join.JoinListener;
import io.stackreq.join.PreparedJoin;
import io.stackreq.model.InputException;
import io.stackreq.output.EnrichedRecordingWriter;
import io.stackreq.output.OutputFiles;

/**
 * The JVM's whole recording with its own CPU samples replaced by stackreq's: its chunks without
 * them, then a chunk of stackreq's samples as {@code jdk.ExecutionSample}. One file for JMC, whose
 * every page then works and whose Method Profiling page shows the unbiased samples.
 */
final class Unbiasing implements AutoCloseable {
    static final String FILE = "recording-unbiased.jfr";

    private final Path output;
    private final SeekableByteChannel channel;
    private final RecordingRewriter.Removed removed;
    private final EnrichedRecordingWriter samples;
    private boolean finished;

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

    private Unbiasing(Path output, SeekableByteChannel channel, RecordingRewriter.Removed removed,
            EnrichedRecordingWriter samples) {
        this.output = output;
        this.channel = channel;
        this.removed = removed;
        this.samples = samples;
    }

    /**
     * Writes the join's recording without the JVM's CPU samples to {@code output}; the samples
     * follow as the join passes them to {@link #listener()}, {@link #finish()} ends the file. The
     * recording is only read.
     *
     * @throws InputException when {@code output} is one of the inputs, or the recording cannot be
     *                        rewritten (cut, corrupt, a version stackreq does not know); no file is left
     */
    static Unbiasing start(PreparedJoin join, Path output) {
        Path recording = join.recording().file();
        checkOutput(output, recording, join.samplesFile());
        SeekableByteChannel channel = OutputFiles.newChannel(output);
        try {
            RecordingRewriter.Removed removed = RecordingRewriter.copyWithoutSamples(recording, channel);
            EnrichedRecordingWriter samples = EnrichedRecordingWriter.executionSamplesTo(channel, join.header(),
                    join.recording().firstEventNanos(), ChunkContext.beside(recording));
            return new Unbiasing(output, channel, removed, samples);
        } catch (IOException | RuntimeException e) {
            closeQuietly(channel);
            deleteQuietly(output);
            if (e instanceof IOException) {
                throw new InputException("cannot write " + output + ": " + e.getMessage(), e);
            }
            throw (RuntimeException) e;
        }
    }

    /** Takes the matched samples of the join. */
    JoinListener listener() {
        return samples;
    }

    /** Ends the file once the join is done. */
    Summary finish() {
        try {
            samples.close();
            channel.close();
        } catch (IOException e) {
            throw new InputException("cannot write " + output + ": " + e.getMessage(), e);
        }
        finished = true;
        return new Summary(removed, samples.written());
    }

    /** Leaves no half-written file when the join did not finish. */
    @Override
    public void close() {
        if (!finished) {
            closeQuietly(channel);
            deleteQuietly(output);
        }
    }

    /**
     * Refuses an output that is an input itself: the inputs are never written.
     *
     * @param inputs the files read; null ones are left out
     * @throws InputException when {@code output} is one of the inputs
     */
    static void checkOutput(Path output, Path... inputs) {
        for (Path input : inputs) {
            try {
                if (input != null && Files.exists(output) && Files.isSameFile(output, input)) {
                    throw new InputException("refusing to write " + output + ": it is the input " + input
                            + " (stackreq never writes over a recording it reads)");
                }
            } catch (IOException e) {
                throw new InputException("cannot write " + output + ": " + e.getMessage(), e);
            }
        }
    }

    private static void closeQuietly(SeekableByteChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // The failure that led here is the one reported.
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // What could not be deleted is named by the failure that led here.
        }
    }
}
