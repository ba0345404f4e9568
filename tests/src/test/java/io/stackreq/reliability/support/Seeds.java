package io.stackreq.reliability.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

import io.stackreq.reliability.app.Spin;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;

/**
 * A real recording and sample file for the CLI tests: one {@code stackreq profile} run of
 * {@link Spin} on the first configured JDK (the CLI itself runs on the tests' JDK, 17+), made once
 * per test JVM and shared.
 */
public record Seeds(Path recording, Path samples) {
    private static Seeds seeds;

    public static synchronized Seeds get() {
        if (seeds == null) {
            try {
                Jdk jdk = Jdk.all().findFirst().orElseThrow();
                Path root = Files.createTempDirectory("stackreq-seeds");
                Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(root)));
                Path out = root.resolve("profile");
                CliRun.Result result = CliRun.inProcess("profile", "--java", jdk.java(), "--agent-dir",
                        JvmRun.nativeDir(), "-o", out, "--", "-cp", JvmRun.testClasses().toAbsolutePath(),
                        Spin.class.getName(), "seconds=1");
                assertEquals("0", result.exit(), () -> "stackreq profile failed\n" + result);
                Seeds made = new Seeds(out.resolve("recording.jfr"), out.resolve("samples.jsonl"));
                assertTrue(Files.size(made.recording()) > 0 && Files.size(made.samples()) > 0,
                        () -> "no seeds\n" + result);
                seeds = made;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return seeds;
    }

    private static void deleteTree(Path root) {
        try (var paths = Files.walk(root)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // best effort: a temporary directory
        }
    }
}
