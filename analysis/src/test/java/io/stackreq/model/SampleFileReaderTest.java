package io.stackreq.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.stackreq.fixtures.FixtureSamples;

class SampleFileReaderTest {
    @TempDir
    Path directory;

    private static List<Sample> readAll(SampleFileReader reader) {
        List<Sample> samples = new ArrayList<>();
        reader.forEachSample(samples::add);
        return samples;
    }

    @Test
    void readsHeaderSamplesAndEndLine() throws IOException {
        Path file = new FixtureSamples("task-clock", "page-faults").sample(42, 1234, 1_000_123, 3)
                .withError(43, 1234, 112, 1_000_000, 0).lost(7).write(directory.resolve("s.jsonl"));
        try (SampleFileReader reader = SampleFileReader.open(file)) {
            SampleFileHeader header = reader.header();
            assertEquals("perf", header.engine());
            assertEquals("task-clock", header.leader());
            assertEquals(List.of("task-clock", "page-faults"), header.events());
            assertTrue(header.isTimeBased());
            List<Sample> samples = readAll(reader);
            assertEquals(2, samples.size());
            Sample first = samples.get(0);
            assertEquals(42, first.userData());
            assertEquals(1234, first.tid());
            assertEquals(Map.of("task-clock", 1_000_123L, "page-faults", 3L), first.deltas());
            assertEquals(2, first.line());
            assertTrue(first.accepted());
            assertFalse(samples.get(1).accepted());
            assertEquals(112, samples.get(1).error());
            SampleFileSummary summary = reader.summary().orElseThrow();
            assertEquals(7, summary.lost());
            assertEquals(Map.of(0, 1L, 112, 1L), summary.errors());
            assertFalse(reader.truncatedLastLine());
        }
    }

    @Test
    void samplesOfTheSameOverflowShareIt() throws IOException {
        Path file = new FixtureSamples("task-clock").sample(1, 5, 1_000_000).sample(2, 6, 1_000_000)
                .withError(3, 5, 112, 1_000_000).sample(4, 5, 1_000_000).write(directory.resolve("shared.jsonl"));
        try (SampleFileReader reader = SampleFileReader.open(file)) {
            List<Sample> samples = readAll(reader);
            assertSame(samples.get(0).overflow(), samples.get(1).overflow());
            assertEquals(new Sample.Overflow("task-clock", 1_000_000, 1, 112), samples.get(2).overflow());
            assertEquals(samples.get(0).overflow(), samples.get(3).overflow());
        }
    }

    @Test
    void aKilledWritersCutOffLastLineIsSkippedAndReported() throws IOException {
        Path file = new FixtureSamples("task-clock").sample(1, 5, 1_000_000).sample(2, 5, 1_000_000).withoutEndLine()
                .write(directory.resolve("killed.jsonl"));
        Files.writeString(file, Files.readString(file) + "{\"type\":\"sample\",\"userData\":3,\"ti");
        try (SampleFileReader reader = SampleFileReader.open(file)) {
            assertEquals(2, readAll(reader).size());
            assertTrue(reader.summary().isEmpty());
            assertTrue(reader.truncatedLastLine());
        }
    }

    @Test
    void aCompleteLastLineWithoutNewlineIsRead() throws IOException {
        Path file = new FixtureSamples("task-clock").sample(1, 5, 1_000_000).withoutEndLine()
                .write(directory.resolve("no-newline.jsonl"));
        Files.writeString(file, Files.readString(file).stripTrailing());
        try (SampleFileReader reader = SampleFileReader.open(file)) {
            assertEquals(1, readAll(reader).size());
            assertFalse(reader.truncatedLastLine());
        }
    }

    @Test
    void emptyFileIsAnError() throws IOException {
        Path file = Files.createFile(directory.resolve("empty.jsonl"));
        InputException error = org.junit.jupiter.api.Assertions.assertThrows(InputException.class,
                () -> SampleFileReader.open(file));
        assertTrue(error.getMessage().contains("is empty"), error.getMessage());
    }
}
