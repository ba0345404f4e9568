package io.stackreq.tests.support;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.stackreq.testapp.BusyThreads;
import io.stackreq.testapp.Report;

/**
 * Runs a child process of a test: a workload class in a JVM of one JDK with libstackreq.so and
 * (by default) the test requester agent ({@link #on}),
 *
 * <pre>
 * java -agentpath:${stackreq.native.dir}/libstackreq.so[=opts]
 *      -agentpath:${stackreq.test.native.dir}/librequester.so[=opts]
 *      -XX:ErrorFile=WORK/NAME-hs_err_pid%p.log flags... -cp ${stackreq.test.classes}[:more] main args...
 * </pre>
 *
 * the stackreq CLI jar ({@link #cli}), or a command the test built ({@link #command}), under an
 * optional wrapper such as a umask, through {@link ChildProcess}: stdin is empty and stdout and
 * stderr go to files in the work directory. A process that outlives its timeout is a hang: its
 * Java threads ({@code jstack}, when it is a JVM of a known JDK) and native threads ({@code gdb},
 * when installed) are dumped into the work directory and the failure message, then it and its
 * descendants are killed and the test fails. Crash logs are the {@code NAME-hs_err*} files of the
 * work directory. {@link #start()} returns any exit code; {@link #run()} also fails the test
 * unless the process exits 0 without a crash log.
 */
public final class JvmRun {
    private final Jdk jdk;
    private final Path workDir;
    private final List<String> givenCommand;
    private String stackreqOptions = "";
    private boolean stackreq = true;
    private String requesterOptions = "";
    private boolean requester = true;
    private final List<String> flags = new ArrayList<>();
    private final List<String> classPath = new ArrayList<>();
    private String mainClass;
    private final List<String> args = new ArrayList<>();
    private List<String> cliArgs;
    private List<String> wrapper = List.of();
    private Duration timeout = Duration.ofSeconds(90);
    private String name = "jvm";

    private JvmRun(Jdk jdk, Path workDir, List<String> givenCommand) {
        this.jdk = jdk;
        this.workDir = workDir;
        this.givenCommand = givenCommand;
    }

    public static JvmRun on(Jdk jdk, Path workDir) {
        return new JvmRun(jdk, workDir, null);
    }

    /**
     * {@code java -XX:ErrorFile=... flags... -Dstackreq.native.dir=... -jar stackreq.jar args...},
     * without the agents, on {@code jdk}; the CLI needs 17, so for an older JDK's recording it
     * runs on the tests' own JDK, as a user's would.
     */
    public static JvmRun cli(Jdk jdk, Path workDir, List<String> cliArguments) {
        Jdk cliJdk = jdk.feature() >= 17 ? jdk : Jdk.current();
        JvmRun run = new JvmRun(cliJdk, workDir, null).withoutStackreq().withoutRequester();
        run.cliArgs = List.copyOf(cliArguments);
        return run;
    }

    /**
     * A command built by the test; {@code jdk} is the JDK of the JVM it starts, for the thread
     * dump of a hang, or null when it starts none of a known JDK.
     */
    public static JvmRun command(Jdk jdk, Path workDir, List<String> command) {
        return new JvmRun(jdk, workDir, List.copyOf(command)).withoutStackreq().withoutRequester();
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

    /** Puts the class directory or jar that holds type on the class path, after the test classes. */
    public JvmRun alsoOnClassPath(Class<?> type) {
        try {
            classPath.add(Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(e);
        }
        return this;
    }

    /** Puts a jar or class directory on the class path, after the test classes. */
    public JvmRun alsoOnClassPath(Path entry) {
        classPath.add(entry.toAbsolutePath().toString());
        return this;
    }

    public JvmRun flags(String... jvmFlags) {
        flags.addAll(Arrays.asList(jvmFlags));
        return this;
    }

    /** Starts a JFR recording into {@code recording} with the JVM, {@code jdk.StackTraceRequest} enabled in it. */
    public JvmRun recordingTo(Path recording) {
        return flags("-XX:StartFlightRecording=filename=" + recording + "," + enableEvent(jdk));
    }

    /**
     * The {@code -XX:StartFlightRecording} option that enables {@code jdk.StackTraceRequest} on top of
     * the JDK's default settings: {@code +jdk.StackTraceRequest#enabled=true}, or on JDK 11, which
     * has no such syntax, the default settings and the build's {@code stackreq.jfc}.
     */
    public static String enableEvent(Jdk jdk) {
        return jdk.feature() >= 17 ? "+jdk.StackTraceRequest#enabled=true"
                : "settings=default,settings=" + eventSettings();
    }

    /** The build's {@code stackreq.jfc}, beside the libraries. */
    public static Path eventSettings() {
        return nativeDir().resolve("stackreq.jfc");
    }

    public JvmRun main(Class<?> main, String... mainArgs) {
        this.mainClass = main.getName();
        args.addAll(Arrays.asList(mainArgs));
        return this;
    }

    /**
     * Runs main with args and {@code out=NAME-report.txt} in the work directory ({@link #run()}), and reads the
     * {@link Report} main wrote there.
     */
    public Report runForReport(Class<?> main, String... mainArgs) throws IOException {
        Path file = workDir.resolve(name + "-report.txt");
        main(main, mainArgs);
        args.add("out=" + file);
        run();
        return Report.read(file);
    }

    /**
     * Runs {@link BusyThreads} on {@code threads} threads that request their stacks from timer signals for
     * {@code seconds} ({@link #runForReport}); {@code moreArgs} are its other arguments ({@code intervalUs=...}).
     */
    public Report runBusyThreads(int threads, double seconds, String... moreArgs) throws IOException {
        List<String> busyArgs = new ArrayList<>(List.of("threads=" + threads, "seconds=" + seconds));
        busyArgs.addAll(Arrays.asList(moreArgs));
        return runForReport(BusyThreads.class, busyArgs.toArray(String[]::new));
    }

    public JvmRun timeout(Duration limit) {
        this.timeout = limit;
        return this;
    }

    /** Prefix of the command (e.g. {@code sh -c 'umask 000; exec "$0" "$@"'}); empty for none. */
    public JvmRun wrapper(List<String> prefix) {
        this.wrapper = List.copyOf(prefix);
        return this;
    }

    /** Prefix of the stdout, stderr, crash log and hang dump files in the work directory. */
    public JvmRun name(String prefix) {
        this.name = prefix;
        return this;
    }

    public static Path stackreqLibrary() {
        return Path.of(property("stackreq.native.dir", "jvmti-ext/target/native")).resolve("libstackreq.so");
    }

    public static Path requesterLibrary() {
        return testNativeDir().resolve("librequester.so");
    }

    /** Where the test agents (librequester.so, libchaos.so, ...) are built. */
    public static Path testNativeDir() {
        return Path.of(property("stackreq.test.native.dir", "tests/target/test-native"));
    }

    public static Path testClasses() {
        return Path.of(property("stackreq.test.classes", "tests/target/test-classes"));
    }

    public static Path nativeDir() {
        return Path.of(property("stackreq.native.dir", "jvmti-ext/target/native")).toAbsolutePath().normalize();
    }

    public static Path cliJar() {
        return Path.of(property("stackreq.cli.jar", "analysis/target/stackreq.jar")).toAbsolutePath().normalize();
    }

    /** The repository root. */
    public static Path root() {
        return Path.of(System.getProperty("stackreq.root", "..")).toAbsolutePath().normalize();
    }

    /** The tests module's build directory ({@code tests/target}). */
    public static Path targetDir() {
        String classes = System.getProperty("stackreq.test.classes");
        Path target = classes != null ? Path.of(classes).getParent() : Path.of("target");
        return target.toAbsolutePath().normalize();
    }

    private List<String> testClassPath() {
        List<String> entries = new ArrayList<>(List.of(testClasses().toAbsolutePath().toString()));
        entries.addAll(classPath);
        return entries;
    }

    private static String property(String key, String relativeToRoot) {
        String value = System.getProperty(key);
        if (value != null) {
            return value;
        }
        return Path.of(System.getProperty("stackreq.root", "..")).resolve(relativeToRoot).toString();
    }

    /** The command without the wrapper; a copy the caller may change. */
    public List<String> command() {
        if (givenCommand != null) {
            return new ArrayList<>(givenCommand);
        }
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
        if (cliArgs != null) {
            command.add("-Dstackreq.native.dir=" + nativeDir());
            command.add("-jar");
            command.add(cliJar().toString());
            command.addAll(cliArgs);
            return command;
        }
        command.add("-cp");
        command.add(String.join(File.pathSeparator, testClassPath()));
        if (mainClass == null) {
            throw new IllegalStateException("no main class");
        }
        command.add(mainClass);
        command.addAll(args);
        return command;
    }

    /** Runs the process and fails the test on a hang; the result's exit code may be anything. */
    public Result start() {
        if (stackreq) {
            assertTrue(Files.isRegularFile(stackreqLibrary()),
                    stackreqLibrary() + " is missing: build it with mvn -pl jfr-events,jvmti-ext -am package");
        }
        if (requester) {
            assertTrue(Files.isRegularFile(requesterLibrary()), requesterLibrary() + " is missing");
        }
        if (cliArgs != null) {
            assertTrue(Files.isRegularFile(cliJar()), cliJar() + " is missing: mvn -B -q package -DskipTests");
        }
        List<String> command = new ArrayList<>(wrapper);
        command.addAll(command());
        Path stdout = workDir.resolve(name + ".out");
        Path stderr = workDir.resolve(name + ".err");
        try {
            ChildProcess.Outcome outcome = ChildProcess.run(command, workDir, stdout, stderr, timeout,
                    jdk == null ? null : jdk.tool("jstack"), workDir.resolve(name + ".hang.txt"), null);
            Result result = new Result(command, outcome.hung() ? Integer.MIN_VALUE : outcome.exitCode(),
                    Files.readString(stdout, StandardCharsets.UTF_8), Files.readString(stderr, StandardCharsets.UTF_8),
                    crashLogs(), outcome.hangDump());
            if (outcome.hung()) {
                fail("hang: " + name + " did not exit within " + timeout + " and was killed\n" + result);
            }
            return result;
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Runs the process and fails the test unless it exits 0 without a crash log. */
    public Result run() {
        Result result = start();
        if (result.exitCode() != 0 || result.crashed()) {
            fail((result.crashed() ? "JVM crashed" : "JVM failed") + " (exit code " + result.exitCode() + ")\n"
                    + result);
        }
        return result;
    }

    private List<Path> crashLogs() throws IOException {
        try (var files = Files.list(workDir)) {
            return files.filter(p -> p.getFileName().toString().startsWith(name + "-hs_err")).sorted().toList();
        }
    }

    /** The last {@code max} characters of text. */
    public static String tail(String text, int max) {
        return text.length() <= max ? text : "...\n" + text.substring(text.length() - max);
    }

    /** What a child process did; {@code hangDump} is empty unless it hung. */
    public record Result(List<String> command, int exitCode, String stdout, String stderr, List<Path> crashLogs,
            String hangDump) {
        public Result {
            command = List.copyOf(command);
            crashLogs = List.copyOf(crashLogs);
        }

        public boolean crashed() {
            return !crashLogs.isEmpty();
        }

        /** stdout's lines, then stderr's. */
        public List<String> lines() {
            List<String> lines = new ArrayList<>(stdout.lines().toList());
            lines.addAll(stderr.lines().toList());
            return lines;
        }

        @Override
        public String toString() {
            StringBuilder text = new StringBuilder();
            text.append("command: ").append(String.join(" ", command)).append('\n');
            text.append("exit code: ").append(exitCode).append('\n');
            text.append("--- stdout ---\n").append(tail(stdout, 8000)).append('\n');
            text.append("--- stderr ---\n").append(tail(stderr, 8000)).append('\n');
            for (Path log : crashLogs) {
                text.append("--- crash log ").append(log).append(" ---\n").append(crashSummary(log)).append('\n');
            }
            if (!hangDump.isEmpty()) {
                text.append("--- thread dump of the hung process ---\n").append(tail(hangDump, 20000)).append('\n');
            }
            return text.toString();
        }

        /** The head of a crash log (the problematic frame, registers, top frames) and its native frames. */
        private static String crashSummary(Path log) {
            try {
                String text = Files.readString(log);
                int headEnd = Math.min(text.length(), 6000);
                String summary = text.substring(0, headEnd);
                int nativeFrames = text.indexOf("Native frames:");
                if (nativeFrames >= headEnd) {
                    summary += "\n...\n" + text.substring(nativeFrames, Math.min(text.length(), nativeFrames + 2500));
                } else if (headEnd < text.length()) {
                    summary += "\n...";
                }
                return summary;
            } catch (IOException e) {
                return e.toString();
            }
        }
    }
}
