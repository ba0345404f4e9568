package io.stackreq.tests.support;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a workload class in a child JVM of one JDK with libstackreq.so and (by default) the test
 * requester agent:
 *
 * <pre>
 * java -agentpath:${stackreq.native.dir}/libstackreq.so[=opts]
 *      -agentpath:${stackreq.test.native.dir}/librequester.so[=opts]
 *      flags... -cp ${stackreq.test.classes} main args...
 * </pre>
 *
 * stdout and stderr go to files in the work directory (no pipe can fill up); {@link #run()}
 * fails the test, with the command and the output, when the JVM exits non-zero, crashes, or
 * outlives the timeout.
 */
public final class JvmRun {
    private final Jdk jdk;
    private final Path workDir;
    private String stackreqOptions = "";
    private boolean stackreq = true;
    private String requesterOptions = "";
    private boolean requester = true;
    private final List<String> flags = new ArrayList<>();
    private String mainClass;
    private final List<String> args = new ArrayList<>();
    private Duration timeout = Duration.ofSeconds(90);
    private String name = "jvm";

    private JvmRun(Jdk jdk, Path workDir) {
        this.jdk = jdk;
        this.workDir = workDir;
    }

    public static JvmRun on(Jdk jdk, Path workDir) {
        return new JvmRun(jdk, workDir);
    }

    /** Options of libstackreq.so ({@code file=...,ring=2}); empty = none. */
    public JvmRun stackreqOptions(String options) {
        this.stackreqOptions = options;
        return this;
    }

    public JvmRun withoutStackreq() {
        this.stackreq = false;
        return this;
    }

    public JvmRun requesterOptions(String options) {
        this.requesterOptions = options;
        return this;
    }

    public JvmRun withoutRequester() {
        this.requester = false;
        return this;
    }

    public JvmRun flags(String... jvmFlags) {
        flags.addAll(Arrays.asList(jvmFlags));
        return this;
    }

    public JvmRun main(Class<?> main, String... mainArgs) {
        this.mainClass = main.getName();
        args.addAll(Arrays.asList(mainArgs));
        return this;
    }

    public JvmRun timeout(Duration limit) {
        this.timeout = limit;
        return this;
    }

    /** Prefix of the stdout/stderr files in the work directory. */
    public JvmRun name(String prefix) {
        this.name = prefix;
        return this;
    }

    public static Path stackreqLibrary() {
        return Path.of(property("stackreq.native.dir", "jvmti-ext/target/native")).resolve("libstackreq.so");
    }

    public static Path requesterLibrary() {
        return Path.of(property("stackreq.test.native.dir", "tests/target/test-native")).resolve("librequester.so");
    }

    public static Path testClasses() {
        return Path.of(property("stackreq.test.classes", "tests/target/test-classes"));
    }

    private static String property(String key, String relativeToRoot) {
        String value = System.getProperty(key);
        if (value != null) {
            return value;
        }
        return Path.of(System.getProperty("stackreq.root", "..")).resolve(relativeToRoot).toString();
    }

    public List<String> command() {
        List<String> command = new ArrayList<>();
        command.add(jdk.java().toString());
        if (stackreq) {
            command.add("-agentpath:" + stackreqLibrary().toAbsolutePath()
                    + (stackreqOptions.isEmpty() ? "" : "=" + stackreqOptions));
        }
        if (requester) {
            command.add("-agentpath:" + requesterLibrary().toAbsolutePath()
                    + (requesterOptions.isEmpty() ? "" : "=" + requesterOptions));
        }
        command.add("-XX:ErrorFile=" + workDir.resolve(name + "-hs_err_pid%p.log"));
        command.addAll(flags);
        command.add("-cp");
        command.add(testClasses().toAbsolutePath().toString());
        if (mainClass == null) {
            throw new IllegalStateException("no main class");
        }
        command.add(mainClass);
        command.addAll(args);
        return command;
    }

    /** Runs the JVM; the result's exit code may be anything. */
    public Result start() {
        if (stackreq) {
            assertTrue(Files.isRegularFile(stackreqLibrary()),
                    stackreqLibrary() + " is missing: build it with mvn -pl jfr-events,jvmti-ext -am package");
        }
        if (requester) {
            assertTrue(Files.isRegularFile(requesterLibrary()), requesterLibrary() + " is missing");
        }
        List<String> command = command();
        Path stdout = workDir.resolve(name + ".out");
        Path stderr = workDir.resolve(name + ".err");
        try {
            Files.createDirectories(workDir);
            Process process = new ProcessBuilder(command).directory(workDir.toFile())
                    .redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
            boolean exited = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!exited) {
                process.destroyForcibly().waitFor();
            }
            Result result = new Result(command, exited ? process.exitValue() : Integer.MIN_VALUE,
                    Files.readString(stdout, StandardCharsets.UTF_8), Files.readString(stderr, StandardCharsets.UTF_8),
                    crashLogs());
            if (!exited) {
                fail("JVM did not exit within " + timeout + "\n" + result);
            }
            return result;
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Runs the JVM and fails the test unless it exits 0 without a crash log. */
    public Result run() {
        Result result = start();
        if (result.exitCode != 0 || !result.crashLogs.isEmpty()) {
            fail("JVM failed (exit code " + result.exitCode + ")\n" + result);
        }
        return result;
    }

    private List<Path> crashLogs() throws IOException {
        try (var files = Files.list(workDir)) {
            return files.filter(p -> p.getFileName().toString().startsWith(name + "-hs_err")).sorted().toList();
        }
    }

    /** What a child JVM did. */
    public static final class Result {
        public final List<String> command;
        public final int exitCode;
        public final String stdout;
        public final String stderr;
        public final List<Path> crashLogs;

        Result(List<String> command, int exitCode, String stdout, String stderr, List<Path> crashLogs) {
            this.command = List.copyOf(command);
            this.exitCode = exitCode;
            this.stdout = stdout;
            this.stderr = stderr;
            this.crashLogs = List.copyOf(crashLogs);
        }

        @Override
        public String toString() {
            StringBuilder text = new StringBuilder();
            text.append("command: ").append(String.join(" ", command)).append('\n');
            text.append("exit code: ").append(exitCode).append('\n');
            text.append("--- stdout ---\n").append(tail(stdout)).append('\n');
            text.append("--- stderr ---\n").append(tail(stderr)).append('\n');
            for (Path log : crashLogs) {
                text.append("--- crash log ").append(log).append(" ---\n");
                try {
                    text.append(head(Files.readString(log))).append('\n');
                } catch (IOException e) {
                    text.append(e).append('\n');
                }
            }
            return text.toString();
        }

        private static String tail(String text) {
            return text.length() <= 8000 ? text : "...\n" + text.substring(text.length() - 8000);
        }

        private static String head(String text) {
            return text.length() <= 6000 ? text : text.substring(0, 6000) + "\n...";
        }
    }
}
