package io.stackreq.reliability.support;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.stackreq.tests.support.Jdk;

/**
 * Runs a command (usually {@code JvmRun.command()}) with a watchdog: a process that outlives its
 * bound is a hang; before it is killed its Java threads ({@code jstack}) and native threads
 * ({@code gdb}, when installed) are dumped into the work directory and into the failure message.
 * Crash logs are the {@code <name>-hs_err*} files {@code JvmRun} points {@code -XX:ErrorFile} to.
 */
public final class ChildJvm {
    private ChildJvm() {
    }

    /** What the process did. */
    public record Result(List<String> command, int exitCode, String stdout, String stderr, List<Path> crashLogs,
            String hangDump) {
        public boolean crashed() {
            return !crashLogs.isEmpty();
        }

        /** The first lines of the first crash log (the problematic frame, registers, top frames). */
        public String crashSummary() {
            if (crashLogs.isEmpty()) {
                return "";
            }
            try {
                String log = Files.readString(crashLogs.get(0));
                int stackStart = log.indexOf("Native frames:");
                String head = log.substring(0, Math.min(log.length(), 1500));
                String stack = stackStart < 0 ? ""
                        : log.substring(stackStart, Math.min(log.length(), stackStart + 2500));
                return head + "\n...\n" + stack;
            } catch (IOException e) {
                return e.toString();
            }
        }

        @Override
        public String toString() {
            StringBuilder text = new StringBuilder();
            text.append("command: ").append(String.join(" ", command)).append('\n');
            text.append("exit code: ").append(exitCode).append('\n');
            text.append("--- stdout ---\n").append(tail(stdout, 4000)).append('\n');
            text.append("--- stderr ---\n").append(tail(stderr, 6000)).append('\n');
            if (!crashLogs.isEmpty()) {
                text.append("--- crash log ").append(crashLogs.get(0)).append(" ---\n")
                        .append(crashSummary()).append('\n');
            }
            if (!hangDump.isEmpty()) {
                text.append("--- thread dump of the hung process ---\n").append(tail(hangDump, 20000)).append('\n');
            }
            return text.toString();
        }
    }

    /** Runs and fails the test on a hang; any exit code and crash are returned to the caller. */
    public static Result start(Jdk jdk, Path workDir, String name, List<String> command, Duration limit) {
        return start(jdk, workDir, name, command, limit, List.of());
    }

    /**
     * @param wrapper prefix of the command (e.g. {@code sh -c 'umask 000; exec "$0" "$@"'}); empty
     *                for none
     */
    public static Result start(Jdk jdk, Path workDir, String name, List<String> command, Duration limit,
            List<String> wrapper) {
        Path stdout = workDir.resolve(name + ".out");
        Path stderr = workDir.resolve(name + ".err");
        List<String> full = new ArrayList<>(wrapper);
        full.addAll(command);
        try {
            Files.createDirectories(workDir);
            Process process = new ProcessBuilder(full).directory(workDir.toFile()).redirectOutput(stdout.toFile())
                    .redirectError(stderr.toFile()).start();
            String hangDump = "";
            if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                hangDump = dumpThreads(jdk, process.pid(), workDir.resolve(name + ".hang.txt"));
                process.destroyForcibly().waitFor();
            }
            Result result = new Result(full, hangDump.isEmpty() ? process.exitValue() : Integer.MIN_VALUE,
                    Files.readString(stdout, StandardCharsets.UTF_8), Files.readString(stderr, StandardCharsets.UTF_8),
                    crashLogs(workDir, name), hangDump);
            if (!hangDump.isEmpty()) {
                fail("hang: the process did not exit within " + limit + "\n" + result);
            }
            return result;
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + full, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Runs and fails the test unless the process exits 0 without a crash log. */
    public static Result run(Jdk jdk, Path workDir, String name, List<String> command, Duration limit) {
        Result result = start(jdk, workDir, name, command, limit);
        if (result.exitCode() != 0 || result.crashed()) {
            fail((result.crashed() ? "JVM crashed" : "JVM failed") + " (exit code "
                    + result.exitCode() + ")\n" + result);
        }
        return result;
    }

    private static List<Path> crashLogs(Path workDir, String name) throws IOException {
        try (var files = Files.list(workDir)) {
            return files.filter(p -> p.getFileName().toString().startsWith(name + "-hs_err")).sorted().toList();
        }
    }

    private static String dumpThreads(Jdk jdk, long pid, Path file) throws IOException, InterruptedException {
        StringBuilder dump = new StringBuilder();
        dump.append("=== jstack -l ").append(pid).append(" ===\n");
        dump.append(capture(List.of(jdk.tool("jstack").toString(), "-l", Long.toString(pid)), 30));
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

    static String tail(String text, int max) {
        return text.length() <= max ? text : "...\n" + text.substring(text.length() - max);
    }
}
