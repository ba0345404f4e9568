package io.stackreq.tests.support;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.stackreq.demo.TwoPhase;
import io.stackreq.testapp.AttachTarget;

/**
 * An {@link AttachTarget} JVM started without agents and running in the background (through
 * {@link JvmRun}, whose hang watchdog and crash logs apply), for the tests that attach to it.
 */
public final class AttachTargetRun implements AutoCloseable {
    private final Path workDir;
    private final CompletableFuture<JvmRun.Result> run;

    private AttachTargetRun(Path workDir, CompletableFuture<JvmRun.Result> run) {
        this.workDir = workDir;
        this.run = run;
    }

    /** Starts it in workDir (its files: target.out, target.err, pid, stop) with extra JVM flags. */
    public static AttachTargetRun start(Jdk jdk, Path workDir, double warmupSeconds, String... flags) {
        return start(jdk, workDir, AttachTarget.class, List.of("warmupSeconds=" + warmupSeconds), flags);
    }

    /**
     * Starts another target with the same protocol ({@code dir=workDir} and args; its cpu lines,
     * pid and stop files as {@link AttachTarget}'s), such as {@link io.stackreq.testapp.MainThreadTarget}.
     */
    public static AttachTargetRun start(Jdk jdk, Path workDir, Class<?> main, List<String> args, String... flags) {
        try {
            Files.createDirectories(workDir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> arguments = new ArrayList<>(List.of("dir=" + workDir));
        arguments.addAll(args);
        return new AttachTargetRun(workDir, CompletableFuture.supplyAsync(() -> JvmRun.on(jdk, workDir)
                .withoutStackreq().withoutRequester().name("target").flags(flags).alsoOnClassPath(TwoPhase.class)
                .main(main, arguments.toArray(String[]::new)).timeout(Duration.ofSeconds(240)).start()));
    }

    /**
     * Waits until it has warmed up and its first cpu line is in target.out; fails when it ended
     * before. The target writes its pid file itself, right after printing that line, while the
     * line reaches target.out through the runner's copy of its output, which may lag behind.
     */
    public long awaitPid() throws InterruptedException, ExecutionException, IOException {
        Path pidFile = workDir.resolve("pid");
        while (!Files.exists(pidFile) || !printedCpuLine()) {
            if (run.isDone()) {
                fail("the target JVM ended before it was ready\n" + run.get());
            }
            Thread.sleep(100);
        }
        return Long.parseLong(Files.readString(pidFile).trim());
    }

    private boolean printedCpuLine() throws IOException {
        Path out = workDir.resolve("target.out");
        if (!Files.exists(out)) {
            return false;
        }
        String text = Files.readString(out);
        return text.substring(0, text.lastIndexOf('\n') + 1).lines().anyMatch(line -> line.startsWith("cpu "));
    }

    /** Asks it to exit without waiting. */
    public void requestStop() throws IOException {
        Files.writeString(workDir.resolve("stop"), "");
    }

    /** Asks it to exit and returns how it ended. */
    public JvmRun.Result stop() throws IOException, InterruptedException, ExecutionException, TimeoutException {
        requestStop();
        return run.get(120, TimeUnit.SECONDS);
    }

    /** {@link #stop()}, for the tests that do not look at how it ended. */
    @Override
    public void close() throws Exception {
        stop();
    }
}
