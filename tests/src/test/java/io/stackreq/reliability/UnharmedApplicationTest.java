package io.stackreq.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Pattern;

import javax.tools.ToolProvider;

import io.stackreq.testapp.BusyThreads;
import io.stackreq.testapp.JfrInternalsAgent;
import io.stackreq.testapp.JvmtiError;
import io.stackreq.testapp.NoJfrApp;
import io.stackreq.testapp.Report;
import io.stackreq.tests.support.Accounting;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JfrFile;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEachJdk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * stackreq never breaks the application: whatever it cannot do on this JDK or with these files,
 * it says in one line and steps aside. Each case runs a real application that exits with a code of
 * its own (3) and checks that the code is unchanged, that its standard output holds its own line
 * only, that no exception trace reached either stream (nothing thrown into its threads, nothing
 * printed by stackreq's Java half or JNI), and that stackreq named the problem in one line:
 *
 * <ul>
 * <li>an unsupported JDK: JDK 8 (Debian's 8u504, {@code JDK8_HOME} or {@code tests/jdk.sh 8}), and
 * a JDK without its jdk.jfr module ({@code --limit-modules java.base});</li>
 * <li>the events jar missing, not a jar, or a jar without stackreq's classes;</li>
 * <li>a JDK internal not where stackreq expects it: JFR's RepositoryChunk without the field that
 * names its file ({@link JfrInternalsAgent} renames it as the class loads);</li>
 * <li>a class rewrite that fails: the JVM refuses the retransformed RepositoryChunk and
 * PlatformEventType ({@link JfrInternalsAgent} breaks them after stackreq's rewriter).</li>
 * </ul>
 *
 * Where JFR is there the requests then get exactly what stackreq can still give: WRONG_PHASE
 * without its Java half, every accepted request's event when the recording stops without the
 * chunk hook.
 */
class UnharmedApplicationTest {
    private static final int EXIT = 3;
    private static final Pattern TRACE = Pattern.compile("^(Exception in thread|\\s+at |Caused by: |\\s+\\.\\.\\. \\d+ more)");

    @TempDir
    Path dir;

    @Test
    void jdk8RefusesInOneLineAndTheApplicationRunsWithoutIt() throws Exception {
        Jdk jdk8 = Jdk.of(jdk8Home());
        Path classes = dir.resolve("classes8");
        Path source = dir.resolve("Unharmed8.java");
        Files.writeString(source, "public class Unharmed8 { public static void main(String[] a) throws Exception {"
                + " Thread t = new Thread(() -> System.out.println(\"Unharmed8: worker\")); t.start(); t.join();"
                + " System.out.println(\"Unharmed8: exit " + EXIT + "\"); System.exit(" + EXIT + "); } }");
        Files.createDirectories(classes);
        int compiled = ToolProvider.getSystemJavaCompiler().run(null, null, null, "--release", "8", "-Xlint:-options",
                "-d", classes.toString(), source.toString());
        assertEquals(0, compiled, "javac --release 8");
        Path recording = dir.resolve("jdk8.jfr");
        JvmRun.Result result = JvmRun.command(jdk8, dir, List.of(jdk8.java().toString(),
                "-agentpath:" + JvmRun.stackreqLibrary().toAbsolutePath(),
                "-agentpath:" + JvmRun.requesterLibrary().toAbsolutePath() + "=optional",
                "-XX:StartFlightRecording=filename=" + recording + ",settings=default,settings="
                        + JvmRun.eventSettings(),
                "-cp", classes.toString(), "Unharmed8")).name("jdk8").timeout(Duration.ofSeconds(60)).start();
        assertUnharmed(result, List.of("Unharmed8: worker", "Unharmed8: exit " + EXIT));
        assertSaidOnce(result, "does not support JDK 8");
        assertTrue(Files.size(recording) > 0, () -> "JFR wrote no recording\n" + result);
    }

    @OnEachJdk
    void aJdkWithoutJfrGetsOneLineAndRequestsAreRefused(Jdk jdk) throws Exception {
        Path out = dir.resolve("no-jfr.txt");
        JvmRun.Result result = JvmRun.on(jdk, dir).name("no-jfr").flags("--limit-modules", "java.base")
                .main(NoJfrApp.class, "out=" + out, "exit=" + EXIT).start();
        assertUnharmed(result, List.of("NoJfrApp: exit " + EXIT));
        assertSaidOnce(result, "JFR integration unavailable");
        Report report = Report.read(out);
        assertEquals(10, report.getInt("rc." + JvmtiError.WRONG_PHASE), () -> "without JFR\n" + report + result);
    }

    @OnEachJdk
    void aMissingEventsJarGetsOneLineAndRequestsAreRefused(Jdk jdk) throws Exception {
        Path missing = dir.resolve("absent/stackreq-jfr-events.jar");
        refusedWithoutTheJavaHalf(jdk, "events-jar=" + missing, "cannot use the events jar " + missing
                + " (No such file or directory)");
    }

    @OnEachJdk
    void anEventsJarThatIsNoJarGetsOneLineAndRequestsAreRefused(Jdk jdk) throws Exception {
        Path notAJar = dir.resolve("stackreq-jfr-events.jar");
        Files.writeString(notAJar, "not a jar\n");
        refusedWithoutTheJavaHalf(jdk, "events-jar=" + notAJar, "cannot use the events jar " + notAJar
                + " (not a jar)");
    }

    @OnEachJdk
    void anEventsJarWithoutStackreqsClassesGetsOneLineAndRequestsAreRefused(Jdk jdk) throws Exception {
        Path empty = dir.resolve("empty.jar");
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        new JarOutputStream(Files.newOutputStream(empty), manifest).close();
        refusedWithoutTheJavaHalf(jdk, "events-jar=" + empty, "JFR integration unavailable");
    }

    @OnEachJdk
    void aJfrClassWithoutTheExpectedFieldGetsOneLineAndEventsAtStop(Jdk jdk) throws Exception {
        JvmRun.Result result = eventsAtStop(jdk, "rename-fields", "fields");
        assertSaidOnce(result, "continuous recordings unavailable on this JDK (jdk/jfr/internal/RepositoryChunk has no"
                + " field chunkFile or unFinishedFile)");
    }

    @OnEachJdk
    void aRewriteTheJvmRefusesGetsOneLineEachAndEventsAtStop(Jdk jdk) throws Exception {
        JvmRun.Result result = eventsAtStop(jdk, "break-retransform", "refused");
        assertSaidOnce(result, "continuous recordings unavailable on this JDK (the JVM refused the rewritten"
                + " jdk/jfr/internal/RepositoryChunk");
        assertSaidOnce(result, "settings changes reach requests within 100 ms on this JDK, not at once (the JVM"
                + " refused the rewritten jdk/jfr/internal/PlatformEventType");
    }

    /** BusyThreads, its timer requests and a recording, with libstackreq's options: no Java half. */
    private void refusedWithoutTheJavaHalf(Jdk jdk, String options, String line) throws IOException {
        Path out = dir.resolve("busy.txt");
        Path recording = dir.resolve("busy.jfr");
        JvmRun.Result result = JvmRun.on(jdk, dir).name("jar").stackreqOptions(options)
                .main(BusyThreads.class, "out=" + out, "threads=2", "seconds=1", "recordTo=" + recording,
                        "exit=" + EXIT).start();
        assertUnharmed(result, List.of("BusyThreads: exit " + EXIT));
        assertSaidOnce(result, line);
        Report report = Report.read(out);
        assertTrue(report.rc(JvmtiError.WRONG_PHASE) > 0, () -> "no timer request was made\n" + report + result);
        assertEquals(report.getLong("issued"), report.rc(JvmtiError.WRONG_PHASE),
                () -> "without its Java half every request is WRONG_PHASE\n" + report + result);
        assertTrue(Files.size(recording) > 0, () -> "JFR wrote no recording\n" + result);
    }

    /**
     * BusyThreads with JfrInternalsAgent(argument) and a recording: every accepted request has its
     * event in the recording, appended when it stopped.
     */
    private JvmRun.Result eventsAtStop(Jdk jdk, String argument, String name) throws IOException {
        Path out = dir.resolve(name + ".txt");
        Path recording = dir.resolve(name + ".jfr");
        JvmRun.Result result = JvmRun.on(jdk, dir).name(name)
                .flags("-javaagent:" + javaAgentJar() + "=" + argument)
                .main(BusyThreads.class, "out=" + out, "threads=2", "seconds=1.5", "recordTo=" + recording,
                        "exit=" + EXIT).start();
        assertUnharmed(result, List.of("BusyThreads: exit " + EXIT));
        Report report = Report.read(out);
        Accounting.assertEachIdExactlyOnce(report.getLongs("accepted"), Accounting.userData(JfrFile.requests(recording)),
                "events appended at stop");
        return result;
    }

    /** The jar of {@link JfrInternalsAgent}, whose class the JVM finds on its class path. */
    private Path javaAgentJar() {
        Path jar = dir.resolve("jfr-internals-agent.jar");
        Manifest manifest = new Manifest();
        Attributes attributes = manifest.getMainAttributes();
        attributes.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        attributes.put(new Attributes.Name("Premain-Class"), JfrInternalsAgent.class.getName());
        attributes.put(new Attributes.Name("Can-Retransform-Classes"), "true");
        try {
            new JarOutputStream(Files.newOutputStream(jar), manifest).close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return jar.toAbsolutePath();
    }

    /** Its exit code, its own output lines only, and no exception trace on either stream. */
    private static void assertUnharmed(JvmRun.Result result, List<String> ownLines) {
        assertEquals(EXIT, result.exitCode(), () -> "the application's exit code changed\n" + result);
        assertTrue(result.crashLogs().isEmpty(), () -> "the JVM crashed\n" + result);
        List<String> traces = result.lines().stream().filter(l -> TRACE.matcher(l).find()).toList();
        assertTrue(traces.isEmpty(), () -> "an exception trace in the application's output: " + traces + "\n" + result);
        List<String> stdout = result.stdout().lines().filter(l -> !l.isBlank() && !isJfrsOwn(l)).toList();
        assertEquals(ownLines, stdout, () -> "standard output holds more than the application's lines\n" + result);
    }

    /** -XX:StartFlightRecording's own lines on standard output. */
    private static boolean isJfrsOwn(String line) {
        return line.startsWith("Started recording") || line.startsWith("Use jcmd");
    }

    private static void assertSaidOnce(JvmRun.Result result, String text) {
        long lines = result.lines().stream().filter(l -> l.contains("stackreq") && l.contains(text)).count();
        assertEquals(1, lines, () -> "expected one line of stackreq's saying '" + text + "'\n" + result);
    }

    /** JDK8_HOME, else Debian's JDK 8 that tests/jdk.sh fetches (and caches) on first use. */
    private String jdk8Home() throws IOException, InterruptedException {
        String home = System.getenv("JDK8_HOME");
        if (home != null && !home.isBlank()) return home;
        Path printed = dir.resolve("jdk.sh.out");
        Path errors = dir.resolve("jdk.sh.err");
        Process process = new ProcessBuilder("bash", JvmRun.root().resolve("tests/jdk.sh").toString(), "8")
                .redirectOutput(printed.toFile()).redirectError(errors.toFile()).start();
        if (!process.waitFor(10, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError("tests/jdk.sh 8 did not finish within 10 minutes (set JDK8_HOME)");
        }
        assertEquals(0, process.exitValue(), () -> "tests/jdk.sh 8 found no JDK 8 (set JDK8_HOME): "
                + readQuietly(errors));
        return Files.readString(printed).trim().lines().reduce((first, second) -> second).orElseThrow();
    }

    private static String readQuietly(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return e.toString();
        }
    }
}
