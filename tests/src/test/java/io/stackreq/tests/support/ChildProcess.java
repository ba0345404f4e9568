package io.stackreq.tests.support;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The one way the tests and the benchmarks ({@code tests/bench}, which compile this file with
 * theirs) run a child process: stdin empty, stdout copied to a file byte for byte, with the
 * monotonic time each line arrived, stderr to a file, an optional monitor thread given the live
 * process, and a watchdog. A process that outlives its timeout is a hang: its Java threads
 * ({@code jstack}, when given) and native threads ({@code gdb}, when installed) are dumped to a
 * file, then it and its descendants are killed. No JUnit here: {@link JvmRun} turns a hang or a
 * failure into a failed test, the benchmarks into a report line.
 */
public final class ChildProcess {
    private ChildProcess() {
    }

    /**
     * How the process ended. {@code exitCode} is the process's own (after the kill of a hang);
     * {@code hangDump} is empty unless it hung.
     */
    public record Outcome(int exitCode, boolean hung, String hangDump, long pid, long startNanos, long endNanos,
            List<String> lines, List<Long> lineNanos) {
        public Outcome {
            lines = List.copyOf(lines);
            lineNanos = List.copyOf(lineNanos);
        }
    }

    /**
     * Runs command in workDir. jstack may be null (no Java thread dump of a hang); monitor may be
     * null, else it runs on a daemon thread with the live process until it ends.
     */
    public static Outcome run(List<String> command, Path workDir, Path stdout, Path stderr, Duration timeout,
            Path jstack, Path hangDumpFile, Consumer<Process> monitor) throws IOException, InterruptedException {
        Files.createDirectories(workDir);
        long start = System.nanoTime();
        Process process = new ProcessBuilder(command).directory(workDir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectError(stderr.toFile()).start();
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        List<Long> times = Collections.synchronizedList(new ArrayList<>());
        Thread reader = new Thread(() -> copyLines(process, stdout, lines, times), "stdout of " + workDir);
        reader.start();
        Thread watcher = null;
        if (monitor != null) {
            watcher = new Thread(() -> monitor.accept(process), "monitor of " + workDir);
            watcher.setDaemon(true);
            watcher.start();
        }
        boolean exited = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        String hangDump = "";
        if (!exited) {
            hangDump = dumpThreads(process.pid(), jstack, hangDumpFile);
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly().waitFor();
        }
        long end = System.nanoTime();
        reader.join();
        if (watcher != null) {
            watcher.join(5000);
        }
        return new Outcome(process.exitValue(), !exited, hangDump, process.pid(), start, end, lines, times);
    }

    /** Copies stdout to its file byte for byte, and notes each line with its arrival time. */
    private static void copyLines(Process process, Path stdout, List<String> lines, List<Long> times) {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        try (InputStream in = process.getInputStream(); OutputStream out = Files.newOutputStream(stdout)) {
            for (int read; (read = in.read(buffer)) > 0;) {
                out.write(buffer, 0, read);
                for (int i = 0; i < read; i++) {
                    if (buffer[i] != '\n') {
                        line.write(buffer[i]);
                        continue;
                    }
                    times.add(System.nanoTime());
                    lines.add(line.toString(StandardCharsets.UTF_8));
                    line.reset();
                }
            }
            if (line.size() > 0) {
                times.add(System.nanoTime());
                lines.add(line.toString(StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            times.add(System.nanoTime());
            lines.add("(harness: reading stdout failed: " + e + ")");
        }
    }

    private static String dumpThreads(long pid, Path jstack, Path file) throws IOException, InterruptedException {
        StringBuilder dump = new StringBuilder();
        if (jstack != null) {
            dump.append("=== jstack -l ").append(pid).append(" ===\n");
            dump.append(capture(List.of(jstack.toString(), "-l", Long.toString(pid)), 30));
        }
        if (Files.isExecutable(Path.of("/usr/bin/gdb"))) {
            dump.append("\n=== gdb: thread apply all bt ===\n");
            dump.append(capture(List.of("/usr/bin/gdb", "-p", Long.toString(pid), "-batch", "-nx", "-ex",
                    "thread apply all bt 30"), 120));
        }
        Files.writeString(file, dump);
        return dump.toString();
    }

    private static String capture(List<String> command, int seconds) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[][] output = new byte[1][];
        Thread reader = new Thread(() -> {
            try {
                output[0] = process.getInputStream().readAllBytes();
            } catch (IOException e) {
                output[0] = e.toString().getBytes(StandardCharsets.UTF_8);
            }
        });
        reader.start();
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
        reader.join(10_000);
        return output[0] == null ? "(no output from " + command.get(0) + ")"
                : new String(output[0], StandardCharsets.UTF_8);
    }
}
