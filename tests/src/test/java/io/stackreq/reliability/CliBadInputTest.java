package io.stackreq.reliability;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import io.stackreq.reliability.app.CliFuzzApp;
import io.stackreq.reliability.support.CliRun;
import io.stackreq.reliability.support.Reliability;
import io.stackreq.reliability.support.Seeds;
import io.stackreq.testapp.Report;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 6.5: bad input to the CLI. Seeds: the recording and sample file of a real
 * {@code stackreq profile} run ({@link Seeds}). Every failure is one line on stderr and
 * exit code 2, never a stack trace, exit code 1, an OutOfMemoryError or a hang; memory stays
 * bounded on inputs of gigabytes and on half a million samples ({@code -Xmx64m}); a fuzz run
 * ({@link CliFuzzApp}, also under {@code -Xmx64m}) of targeted and random mutations: 200 random
 * files in CI, 12,000 with {@code -Dstackreq.long=true}.
 */
class CliBadInputTest {
    static Path recording;
    static Path samples;
    /** The CLI's JDK: the tests' own (17+), whatever JDK the seeds were recorded on. */
    static final Jdk jdk = Jdk.current();

    @TempDir
    Path dir;

    @BeforeAll
    static void seeds() {
        Seeds seeds = Seeds.get();
        recording = seeds.recording();
        samples = seeds.samples();
    }

    @Test
    void emptyRecordingAndEmptySampleFile() throws IOException {
        Path emptyRecording = Files.createFile(dir.resolve("empty.jfr"));
        Path emptySamples = Files.createFile(dir.resolve("empty.jsonl"));
        String line = CliRun.assertOneLineError(CliRun.inProcess("report", emptyRecording));
        assertTrue(line.contains("empty.jfr"), line);
        line = CliRun.assertOneLineError(CliRun.inProcess("report", recording, "--samples", emptySamples));
        assertTrue(line.contains("empty.jsonl") && line.contains("empty"), line);
    }

    /** Cut inside the header, inside the JVM's chunk, at and inside stackreq's appended chunk. */
    @Test
    void truncatedRecording() throws IOException {
        byte[] bytes = Files.readAllBytes(recording);
        long firstChunk = java.nio.ByteBuffer.wrap(bytes).getLong(8);
        for (long cut : new long[] {1, 40, 67, 68, 4096, firstChunk - 1, firstChunk, firstChunk + 68,
                bytes.length - 1}) {
            Path truncated = Files.write(dir.resolve("cut-" + cut + ".jfr"), Arrays.copyOf(bytes, (int) cut));
            String line = CliRun.assertOneLineError(CliRun.inProcess("report", truncated, "--samples", samples));
            assertTrue(line.contains(truncated.toString()), line);
        }
    }

    /** A sample file cut in a line (the JVM was killed): reported in the output, or one line and exit 2. */
    @Test
    void truncatedSampleFile() throws IOException {
        byte[] bytes = Files.readAllBytes(samples);
        for (int at : new int[] {1, 50, bytes.length / 2 + 7, bytes.length - 2}) {
            int cut = insideLine(bytes, at);
            Path truncated = Files.write(dir.resolve("cut-" + cut + ".jsonl"), Arrays.copyOf(bytes, cut));
            CliRun.Result result = CliRun.inProcess("report", recording, "--samples", truncated);
            if (result.exit().equals("0")) {
                assertTrue(result.out().contains("cut off"), () -> "a cut-off line not reported\n" + result);
            } else {
                CliRun.assertOneLineError(result);
            }
        }
    }

    /**
     * The first cut at or after at that ends the file inside a line, at least one character before
     * that line's end: a cut right after a newline leaves whole lines, one right before it a whole
     * line without its newline, and neither is a cut-off line (the file's contents decide where the
     * middle falls).
     */
    private static int insideLine(byte[] bytes, int at) {
        int cut = at;
        while (cut < bytes.length && (bytes[cut - 1] == '\n' || bytes[cut] == '\n')) {
            cut++;
        }
        return cut;
    }

    @Test
    void hugeSampleLine() throws IOException {
        Path file = dir.resolve("huge-line.jsonl");
        String start = Files.readAllLines(samples, StandardCharsets.UTF_8).get(0);
        Files.writeString(file, start + "\n{\"type\":\"sample\",\"userData\":" + "1".repeat(4 << 20) + "}\n");
        String line = CliRun.assertOneLineError(CliRun.inProcess("report", recording, "--samples", file));
        assertTrue(line.contains("line longer than"), line);
    }

    /** {@code java -Xmx64m -jar stackreq.jar} on a 4 GiB recording of zeros and a 3 GiB sample line (sparse files). */
    @Test
    void gigabyteInputsInSixtyFourMegabytes() throws IOException {
        Path zeros = sparse(dir.resolve("zeros.jfr"), new byte[0], 4L << 30);
        String line = CliRun.assertOneLineError(CliRun.child(jdk, dir, "zeros", List.of("-Xmx64m"), List.of(), "report",
                zeros));
        assertTrue(line.contains("zeros.jfr"), line);
        String header = Files.readAllLines(samples, StandardCharsets.UTF_8).get(0);
        byte[] start = (header + "\n").getBytes(StandardCharsets.UTF_8);
        Path longLine = sparse(dir.resolve("long-line.jsonl"), start, 3L << 30);
        line = CliRun.assertOneLineError(CliRun.child(jdk, dir, "long-line", List.of("-Xmx64m"), List.of(), "report",
                recording, "--samples", longLine));
        assertTrue(line.contains("line longer than"), line);
    }

    /** Half a million valid samples (about 75 MB) are joined in 64 MB of heap. */
    @Test
    void halfAMillionSamplesInSixtyFourMegabytes() throws IOException {
        List<String> lines = Files.readAllLines(samples, StandardCharsets.UTF_8);
        List<String> sampleLines = lines.stream().filter(l -> l.contains("\"type\":\"sample\"")).toList();
        Path large = dir.resolve("large.jsonl");
        try (BufferedWriter out = Files.newBufferedWriter(large, StandardCharsets.UTF_8)) {
            out.write(lines.get(0));
            out.write('\n');
            for (int i = 0; i < 500_000; i++) {
                out.write(sampleLines.get(i % sampleLines.size()));
                out.write('\n');
            }
        }
        JvmRun.Result result = CliRun.child(jdk, dir, "large", List.of("-Xmx64m"), List.of(), "report", recording,
                "--samples", large);
        Files.delete(large);
        if (result.exitCode() != 0) {
            CliRun.assertOneLineError(result);
        }
        assertTrue(!result.crashed() && !result.stderr().contains("OutOfMemoryError"), () -> result.toString());
    }

    @Test
    void fuzzedRecordingsAndSampleFiles() throws IOException {
        int files = Reliability.cliFuzzFiles();
        Path report = dir.resolve("fuzz.txt");
        List<String> command = List.of(jdk.java().toString(), "-Xmx64m",
                "-XX:ErrorFile=" + dir.resolve("fuzz-hs_err_pid%p.log"),
                "-cp", JvmRun.testClasses().toAbsolutePath() + java.io.File.pathSeparator
                        + CliRun.fixtureClasses().toAbsolutePath() + java.io.File.pathSeparator
                        + JvmRun.cliJar(),
                CliFuzzApp.class.getName(), "recording=" + recording, "samples=" + samples,
                "work=" + dir.resolve("fuzz"),
                "out=" + report, "files=" + files, "seed=" + Long.getLong("stackreq.cli.fuzz.seed", 1));
        JvmRun.Result run = JvmRun.command(jdk, dir, command).name("fuzz").timeout(Duration.ofSeconds(180 + files))
                .run();
        Report outcome = Report.read(report);
        StringBuilder text = new StringBuilder();
        outcome.keys().forEach(key -> text.append(key).append('=').append(outcome.get(key)).append('\n'));
        System.out.println("[cli fuzz] " + text);
        if (outcome.getLong("failures") != 0) {
            Path kept = Path.of("target", "reliability-cli-fuzz").toAbsolutePath();
            Files.createDirectories(kept);
            try (var inputs = Files.list(dir.resolve("fuzz"))) {
                for (Path input : inputs.filter(p -> p.getFileName().toString().startsWith("fail-")).toList()) {
                    Files.copy(input, kept.resolve(input.getFileName()),
                            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
            fail(outcome.getLong("failures") + " inputs broke the CLI (kept in " + kept + ")\n" + text + run);
        }
        assertTrue(outcome.getLong("runs") >= files, () -> "fewer runs than files\n" + text);
    }

    private static Path sparse(Path file, byte[] head, long length) throws IOException {
        try (RandomAccessFile out = new RandomAccessFile(file.toFile(), "rw")) {
            out.write(head);
            out.setLength(length);
        }
        return file;
    }
}
