package io.stackreq.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.stackreq.reliability.app.CliFuzzApp;
import io.stackreq.reliability.support.CliRun;
import io.stackreq.tests.support.AttachTargetRun;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEachJdk;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16, acceptance 5: {@code profile --pid} of what cannot be profiled gives one line naming
 * the cause and exit code 2, and leaves no output file behind: a process that is not a JVM (and
 * it survives: the attach mechanism's SIGQUIT is never sent to it), a pid that does not exist, a
 * JVM started with {@code -XX:+DisableAttachMechanism}, a JVM of another user, a JVM that exits
 * during the profile, and options that do not go with {@code --pid}.
 */
class AttachBadInputTest {
    private static final Path SETPRIV = Path.of("/usr/bin/setpriv");
    @TempDir
    Path dir;

    @Test
    void optionsThatDoNotGoWithPid() {
        String line = CliRun.assertOneLineError(CliRun.inProcess("profile", "--pid", "1", "--", "-cp", "x", "Main"));
        assertTrue(line.contains("--pid"), line);
        line = CliRun.assertOneLineError(CliRun.inProcess("profile", "--pid", "1", "--duration", "10"));
        assertTrue(line.contains("--duration '10'"), line);
        line = CliRun.assertOneLineError(CliRun.inProcess("profile", "--duration", "5s", "--", "-cp", "x", "Main"));
        assertTrue(line.contains("--duration is for --pid"), line);
        line = CliRun.assertOneLineError(CliRun.inProcess("profile"));
        assertTrue(line.contains("--pid PID"), line);
    }

    @Test
    void aPidThatIsNotARunningJvm() throws Exception {
        Process sleeper = new ProcessBuilder("sleep", "60").start();
        try {
            Path out = dir.resolve("out");
            String line = CliRun.assertOneLineError(CliRun.inProcess("profile", "--pid", sleeper.pid(), "--duration",
                    "1s", "-o", out));
            assertTrue(line.contains("process " + sleeper.pid() + " is not a JVM"), line);
            assertTrue(sleeper.isAlive(), "the process that is not a JVM was killed");
            assertFalse(Files.exists(out), "an output directory was created for nothing");

            long gone = ProcessHandle.current().pid() + 4_000_000;
            line = CliRun.assertOneLineError(CliRun.inProcess("profile", "--pid", gone, "-o", out));
            assertTrue(line.contains("no process with pid " + gone), line);
        } finally {
            sleeper.destroy();
        }
    }

    @OnEachJdk
    void aJvmWithoutTheAttachMechanism(Jdk jdk) throws Exception {
        Path work = dir.resolve("no-attach");
        Path out = work.resolve("out");
        try (AttachTargetRun target = AttachTargetRun.start(jdk, work, 0, "-XX:+DisableAttachMechanism")) {
            long pid = target.awaitPid();
            String line = CliRun.assertOneLineError(cli(work, "profile", "--pid", Long.toString(pid), "-o",
                    out.toString()));
            assertTrue(line.contains("cannot attach to JVM " + pid) && line.contains("DisableAttachMechanism"), line);
            assertFalse(Files.exists(out), "an output directory was created for nothing");
        }
    }

    @OnEachJdk
    void aJvmThatExitsDuringTheProfile(Jdk jdk) throws Exception {
        Path work = dir.resolve("exits");
        Path out = work.resolve("out");
        try (AttachTargetRun target = AttachTargetRun.start(jdk, work, 0)) {
            long pid = target.awaitPid();
            CompletableFuture<JvmRun.Result> profile = CompletableFuture.supplyAsync(() -> cli(work, "profile",
                    "--pid", Long.toString(pid), "--duration", "60s", "-o", out.toString()));
            Path samples = out.resolve("samples.jsonl");
            while (!Files.exists(samples) || Files.size(samples) == 0) {
                if (profile.isDone()) {
                    fail("profile ended before sampling\n" + profile.get());
                }
                Thread.sleep(100);
            }
            target.requestStop();
            JvmRun.Result result = profile.get(120, TimeUnit.SECONDS);
            // Before the error: the line that said the profile started.
            assertEquals(2, result.exitCode(), () -> "exit code 2 expected\n" + result);
            List<String> lines = result.stderr().lines().toList();
            assertTrue(lines.size() == 2 && lines.get(0).startsWith("stackreq: profiling JVM " + pid)
                    && lines.get(1).startsWith("stackreq: JVM " + pid + " exited during the profile"),
                    () -> "the start line and one error line expected\n" + result);
            assertFalse(CliFuzzApp.STACK_TRACE.matcher(result.stderr()).find(), () -> "a stack trace\n" + result);
            try (var left = Files.list(out)) {
                List<Path> files = left.toList();
                assertTrue(files.isEmpty(), "files left behind: " + files);
            }
        }
    }

    /**
     * A JVM of another user: the CLI refuses it itself (the JVM would write the recording and the
     * samples as that user) with one line naming the user. Needs root, to start the JVM as nobody.
     */
    @OnEachJdk
    void aJvmOfAnotherUser(Jdk jdk) throws Exception {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")) && Files.isExecutable(SETPRIV),
                "starting a JVM as another user needs root and " + SETPRIV);
        Path work = JvmRun.targetDir().resolve("attach-bad-input").resolve("jdk" + jdk.feature());
        Files.createDirectories(work);
        Path idle = work.resolve("Idle.java");
        Files.writeString(idle, "public class Idle { public static void main(String[] a) throws Exception {"
                + " System.out.println(\"ready\"); Thread.sleep(120_000); } }\n");
        Process target = new ProcessBuilder(SETPRIV.toString(), "--reuid=65534", "--regid=65534", "--clear-groups",
                jdk.java().toString(), idle.getFileName().toString()).directory(work.toFile())
                .redirectErrorStream(true).start();
        try {
            String first = new String(target.getInputStream().readNBytes("ready".length()));
            assertEquals("ready", first, "the JVM run as nobody did not start");
            Path out = work.resolve("out");
            String line = CliRun.assertOneLineError(cli(work, "profile", "--pid", Long.toString(target.pid()), "-o",
                    out.toString()));
            assertTrue(line.contains("belongs to user nobody"), line);
            assertFalse(Files.exists(out), "an output directory was created for nothing");
            assertTrue(target.isAlive(), "the other user's JVM did not survive");
        } finally {
            target.destroyForcibly();
        }
    }

    private static JvmRun.Result cli(Path work, String... args) {
        return JvmRun.cli(Jdk.current(), work, List.of(args)).name("profile").timeout(Duration.ofSeconds(120))
                .start();
    }
}
