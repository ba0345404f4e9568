package io.stackreq.e2e.cli;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Child processes of the CLI tests: the {@code stackreq} CLI jar, the root script, Chromium. Their
 * stdout and stderr go to files in a work directory (no pipe can fill up); a process that
 * outlives its limit is killed and fails the test (a hang, not a timing assertion).
 */
final class Processes {
    private Processes() {
    }

    /** What a child process did. */
    record Result(List<String> command, int exitCode, String stdout, String stderr) {
        List<String> lines() {
            List<String> lines = new ArrayList<>(stdout.lines().toList());
            lines.addAll(stderr.lines().toList());
            return lines;
        }

        @Override
        public String toString() {
            return "command: " + String.join(" ", command) + "\nexit code: " + exitCode + "\n--- stdout ---\n"
                    + tail(stdout) + "\n--- stderr ---\n" + tail(stderr);
        }

        private static String tail(String text) {
            return text.length() <= 8000 ? text : "...\n" + text.substring(text.length() - 8000);
        }
    }

    /** The tests module's build directory ({@code tests/target}). */
    static Path targetDir() {
        String classes = System.getProperty("stackreq.test.classes");
        Path target = classes != null ? Path.of(classes).getParent() : Path.of("target");
        return target.toAbsolutePath().normalize();
    }

    /** The repository root. */
    static Path root() {
        return Path.of(System.getProperty("stackreq.root", "..")).toAbsolutePath().normalize();
    }

    static Path cliJar() {
        return Path.of(System.getProperty("stackreq.cli.jar",
                root().resolve("analysis/target/stackreq.jar").toString()))
                .toAbsolutePath().normalize();
    }

    static Path nativeDir() {
        return Path.of(System.getProperty("stackreq.native.dir", root().resolve("jvmti-ext/target/native").toString()))
                .toAbsolutePath().normalize();
    }

    /**
     * {@code java -Dstackreq.native.dir=... -jar stackreq.jar args...}, on the java running the
     * tests (the CLI is Java 17 code; the profiled JVM is chosen with {@code --java}).
     */
    static Result cli(Path workDir, String name, Duration limit, List<String> args) {
        if (!Files.isRegularFile(cliJar())) {
            fail(cliJar() + " is missing: build the project with mvn -B -q package -DskipTests");
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Dstackreq.native.dir=" + nativeDir());
        command.add("-jar");
        command.add(cliJar().toString());
        command.addAll(args);
        return run(workDir, name, limit, command);
    }

    /** Runs {@code command} in {@code workDir}; fails the test when it outlives {@code limit}. */
    static Result run(Path workDir, String name, Duration limit, List<String> command) {
        try {
            Files.createDirectories(workDir);
            Path out = workDir.resolve(name + ".out");
            Path err = workDir.resolve(name + ".err");
            Process process = new ProcessBuilder(command).directory(workDir.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            boolean exited = process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
            if (!exited) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor();
            }
            Result result = new Result(List.copyOf(command), exited ? process.exitValue() : Integer.MIN_VALUE,
                    Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
            if (!exited) {
                fail(name + " did not finish within " + limit + " and was killed\n" + result);
            }
            return result;
        } catch (IOException e) {
            throw new AssertionError("cannot run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
