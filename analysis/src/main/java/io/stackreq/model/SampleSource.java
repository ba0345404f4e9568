package io.stackreq.model;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The samples a join weighs stacks by, whoever wrote them: stackreq's perf agent (its JSON-lines
 * sample file) or another profiler that records its samples as JFR events (Datadog's).
 */
public interface SampleSource extends Closeable {
    /** The perf agent's sample file, by {@link #format()}. */
    String PERF = "perf";
    /** Sample events of a JFR recording, by {@link #format()}. */
    String JFR = "jfr";

    /**
     * Opens {@code file} as what its content says it is: a JFR file (it starts with the chunk magic
     * {@code FLR\0}) or else the perf agent's sample file.
     *
     * @param jfrSpec which events of a JFR file are the samples; must be the defaults for a perf sample file
     */
    static SampleSource open(Path file, JfrSampleSpec jfrSpec) {
        if (startsWithJfrMagic(file)) {
            return JfrSampleFile.open(file, jfrSpec);
        }
        if (!jfrSpec.isDefault()) {
            throw new InputException(jfrSpec.options() + ": for a JFR file as --samples, but " + file
                    + " is a perf agent sample file (weigh its samples with --metric)");
        }
        return SampleFileReader.open(file);
    }

    private static boolean startsWithJfrMagic(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return Arrays.equals(in.readNBytes(4), new byte[] {'F', 'L', 'R', 0});
        } catch (NoSuchFileException e) {
            throw new InputException("sample file not found: " + file);
        } catch (IOException e) {
            throw new InputException("cannot read sample file " + file + ": " + e.getMessage(), e);
        }
    }

    Path file();

    /** {@link #PERF} or {@link #JFR}. */
    String format();

    /** The counters each sample has deltas of; for JFR samples, the one metric they are weighed by. */
    SampleFileHeader header();

    /** Calls {@code action} for every sample, in file order. */
    void forEachSample(Consumer<Sample> action);

    /** The perf agent's end line, once {@link #forEachSample} has run; empty when there is none. */
    Optional<SampleFileSummary> summary();

    /** Whether the file ended in the middle of a record (the writer was killed while writing it). */
    boolean truncatedLastLine();

    /**
     * Samples {@link #forEachSample} left out because their profiler walked the stack itself instead
     * of requesting it (their userData is 0), once it has run.
     */
    long undelegated();

    /**
     * The library that requested the stack traces these samples refer to (the {@code requester} of
     * their {@code jdk.StackTraceRequest} events), when known from what wrote them.
     */
    Optional<String> requester();
}
