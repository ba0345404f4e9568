package io.stackreq.reliability.app;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.stackreq.reliability.support.CliRun;
import io.stackreq.testapp.Args;
import io.stackreq.testapp.Report;

/**
 * Feeds mutated recordings and sample files to the stackreq CLI, in process (its non-exiting
 * entry {@code Main.commandLine().execute}), in a JVM the test starts with a small heap, so an
 * input that makes the CLI read a file into memory fails as an OutOfMemoryError.
 *
 * <p>Every run must end with exit code 0, or exit code 2 and exactly one line on stderr starting
 * with "stackreq: " (no stack trace, no exception class name); anything else (exit 1, an
 * exception or error thrown out of execute, no return within 60 s) is a failure, and the input is kept as
 * {@code work/fail-<n>.<ext>} with its seed.
 *
 * <p>First the targeted inputs (chunk header fields of the recording set to 0, -1, tiny, huge;
 * the recording cut at and around every chunk boundary), then {@code files} random mutations
 * (half of the recording, half of the sample file; truncation, random bytes, a random run,
 * insertion, deletion, duplication, a header field, and for sample files: a huge number, a
 * 100 KB line, a lost newline, a repeated start line), each with one of the commands report,
 * collapsed, join -o and enrich -o.
 *
 * <p>Arguments: {@code recording}, {@code samples}, {@code work}, {@code out}, {@code files},
 * {@code seed}.
 */
public final class CliFuzzApp {
    /** A Java stack trace or a qualified exception class name (names inside the input may say "Exception"). */
    public static final java.util.regex.Pattern STACK_TRACE = java.util.regex.Pattern.compile(
            "(^|\\n)\\s+at |Exception in thread"
                    + "|\\b(java|javax|jdk|sun|org|com|io|picocli)(\\.\\w+)+\\.\\w*(Exception|Error)\\b");
    private static final long[] HEADER_VALUES = {0, -1, 67, Integer.MAX_VALUE, 1L << 40};

    private final Path recording;
    private final Path samples;
    private final Path work;
    private final Map<String, Long> outcomes = new TreeMap<>();
    private final List<String> failures = new ArrayList<>();
    private ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "cli");
        thread.setDaemon(true);
        return thread;
    });
    private long runs;
    private boolean hung;

    private CliFuzzApp(Path recording, Path samples, Path work) {
        this.recording = recording;
        this.samples = samples;
        this.work = work;
    }

    public static void main(String[] args) throws Exception {
        Args a = Args.parse(args);
        CliFuzzApp fuzz = new CliFuzzApp(a.path("recording"), a.path("samples"), a.path("work"));
        Files.createDirectories(fuzz.work);
        long started = System.nanoTime();
        fuzz.targeted();
        fuzz.random(a.getInt("files", 200), a.getLong("seed", 1));
        Report report = new Report();
        report.put("runs", fuzz.runs);
        report.put("seconds", (System.nanoTime() - started) / 1_000_000_000);
        report.put("maxHeapMiB", Runtime.getRuntime().maxMemory() >> 20);
        report.put("failures", fuzz.failures.size());
        for (int i = 0; i < Math.min(20, fuzz.failures.size()); i++) {
            report.put("failure." + i, fuzz.failures.get(i));
        }
        int n = 0;
        for (Map.Entry<String, Long> outcome : fuzz.outcomes.entrySet()) {
            report.put("outcome." + n++, outcome.getValue() + " x " + outcome.getKey());
        }
        report.write(a.path("out"));
        System.exit(0);
    }

    private void targeted() throws IOException {
        byte[] bytes = Files.readAllBytes(recording);
        List<Long> chunkStarts = new ArrayList<>();
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        for (long offset = 0; offset + 68 <= bytes.length && chunkStarts.size() < 64;) {
            chunkStarts.add(offset);
            long size = buffer.getLong((int) offset + 8);
            if (size <= 0) {
                break;
            }
            offset += size;
        }
        int n = 0;
        for (long start : chunkStarts) {
            for (int field = 8; field <= 56; field += 8) {
                for (long value : HEADER_VALUES) {
                    byte[] copy = bytes.clone();
                    ByteBuffer.wrap(copy).putLong((int) start + field, value);
                    check(copy, "jfr", "targeted " + n++ + ": chunk at " + start + ", header byte "
                            + field + " = " + value,
                            0);
                }
            }
            for (long cut : new long[] {start, start + 1, start + 16, start + 67, start + 68, start + 200}) {
                if (cut < bytes.length) {
                    check(Arrays.copyOf(bytes, (int) cut), "jfr", "targeted " + n++ + ": cut at " + cut, 0);
                }
            }
        }
        check(new byte[0], "jfr", "targeted: empty recording", 0);
        check(new byte[0], "jsonl", "targeted: empty sample file", 0);
    }

    private void random(int files, long seed) throws IOException {
        byte[] recordingBytes = Files.readAllBytes(recording);
        byte[] sampleBytes = Files.readAllBytes(samples);
        for (int i = 0; i < files && !hung; i++) {
            long fileSeed = seed * 1_000_003L + i;
            Random random = new Random(fileSeed);
            boolean jfr = i % 2 == 0;
            byte[] mutated = jfr ? mutateBinary(recordingBytes, random) : mutateLines(sampleBytes, random);
            check(mutated, jfr ? "jfr" : "jsonl", "random " + i + " (seed " + fileSeed + ")", random.nextInt(4));
        }
    }

    private static byte[] mutateBinary(byte[] base, Random random) {
        byte[] copy = base.clone();
        switch (random.nextInt(7)) {
            case 0 -> {
                return Arrays.copyOf(base, random.nextInt(base.length));
            }
            case 1 -> {
                for (int k = 1 + random.nextInt(16); k > 0; k--) {
                    copy[random.nextInt(copy.length)] = (byte) random.nextInt(256);
                }
            }
            case 2 -> {
                int at = random.nextInt(copy.length);
                for (int k = 0; k < 1 + random.nextInt(64) && at + k < copy.length; k++) {
                    copy[at + k] = (byte) random.nextInt(256);
                }
            }
            case 3 -> {
                int at = random.nextInt(base.length);
                byte[] inserted = new byte[1 + random.nextInt(32)];
                random.nextBytes(inserted);
                return concat(Arrays.copyOf(base, at), inserted, Arrays.copyOfRange(base, at, base.length));
            }
            case 4 -> {
                int at = random.nextInt(base.length);
                int end = Math.min(base.length, at + 1 + random.nextInt(256));
                return concat(Arrays.copyOf(base, at), Arrays.copyOfRange(base, end, base.length));
            }
            case 5 -> {
                int at = random.nextInt(base.length);
                int end = Math.min(base.length, at + 1 + random.nextInt(4096));
                return concat(Arrays.copyOf(base, end), Arrays.copyOfRange(base, at, base.length));
            }
            default -> {
                // A varint-looking run of 0xff bytes: huge lengths and counts.
                int at = random.nextInt(copy.length);
                for (int k = 0; k < 9 && at + k < copy.length; k++) {
                    copy[at + k] = (byte) 0xff;
                }
            }
        }
        return copy;
    }

    private static byte[] mutateLines(byte[] base, Random random) {
        String text = new String(base, StandardCharsets.ISO_8859_1);
        List<String> lines = new ArrayList<>(Arrays.asList(text.split("\n", -1)));
        int line = random.nextInt(lines.size());
        switch (random.nextInt(6)) {
            case 0 -> lines.set(line, lines.get(line).replaceFirst("\\d+",
                    random.nextBoolean() ? "99999999999999999999999"
                    : random.nextBoolean() ? "-1" : "1.5e300"));
            case 1 -> lines.add(line, "{\"type\":\"sample\",\"userData\":" + "9".repeat(100_000) + "}");
            case 2 -> {
                if (line + 1 < lines.size()) {
                    lines.set(line, lines.get(line) + lines.remove(line + 1));
                }
            }
            case 3 -> lines.add(line, lines.get(0));
            case 4 -> lines.set(line, lines.get(line).replace("\"", random.nextBoolean() ? "" : "\\\""));
            default -> {
                return mutateBinary(base, random);
            }
        }
        return String.join("\n", lines).getBytes(StandardCharsets.ISO_8859_1);
    }

    private static byte[] concat(byte[]... parts) {
        int length = 0;
        for (byte[] part : parts) {
            length += part.length;
        }
        byte[] all = new byte[length];
        int at = 0;
        for (byte[] part : parts) {
            System.arraycopy(part, 0, all, at, part.length);
            at += part.length;
        }
        return all;
    }

    /** Runs one command on the mutated file; records the outcome and, on failure, keeps the input. */
    private void check(byte[] mutated, String extension, String what, int command) throws IOException {
        if (hung) {
            return;
        }
        Path input = work.resolve("input." + extension);
        Files.write(input, mutated);
        Path rec = extension.equals("jfr") ? input : recording;
        Path sam = extension.equals("jfr") ? samples : input;
        Path output = work.resolve("output");
        String[] args = switch (command) {
            case 1 -> new String[] {"collapsed", rec.toString(), "--samples", sam.toString()};
            case 2 -> new String[] {"join", rec.toString(), "--samples", sam.toString(), "-o", output.toString()};
            case 3 -> new String[] {"enrich", rec.toString(), "--samples", sam.toString(), "-o", output.toString()};
            default -> new String[] {"report", rec.toString(), "--samples", sam.toString()};
        };
        runs++;
        Future<CliRun.Result> result = executor.submit(() -> CliRun.inProcess((Object[]) args));
        String[] outcome;
        try {
            CliRun.Result run = result.get(60, TimeUnit.SECONDS);
            outcome = run.exit().startsWith("threw ") ? new String[] {"threw", run.exit().substring("threw ".length())}
                    : new String[] {run.exit(), run.err()};
        } catch (TimeoutException e) {
            outcome = new String[] {"hang", "no return within 60 s"};
            hung = true;
        } catch (Exception e) {
            outcome = new String[] {"threw", e.toString()};
        }
        String code = outcome[0];
        String err = outcome[1];
        long lines = err.lines().count();
        boolean ok = code.equals("0") || (code.equals("2") && lines == 1 && err.startsWith("stackreq: ")
                && !STACK_TRACE.matcher(err).find());
        outcomes.merge(args[0] + " exit " + code + (code.equals("2")
                ? (lines == 1 ? " one line" : " " + lines + " lines") : ""),
                1L, Long::sum);
        if (!ok) {
            Path kept = work.resolve("fail-" + failures.size() + "." + extension);
            Files.copy(input, kept, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            String first = err.lines().findFirst().orElse("").replace('\n', ' ');
            failures.add(what + ": " + String.join(" ", args[0]) + " exit " + code + ", " + lines + " stderr lines: "
                    + (first.length() > 300 ? first.substring(0, 300) : first) + " (input " + kept + ")");
        }
    }
}
