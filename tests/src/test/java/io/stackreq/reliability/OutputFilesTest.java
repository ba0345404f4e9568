package io.stackreq.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import io.stackreq.reliability.app.FileSinkApp;
import io.stackreq.reliability.app.Spin;
import io.stackreq.reliability.support.CliRun;
import io.stackreq.reliability.support.Reliability;
import io.stackreq.reliability.support.Seeds;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEachJdk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 6.6: outputs are created without following a symbolic link planted at their path, and
 * are not writable by others, whatever the umask (runs under {@code umask 000}).
 *
 * <p>CLI: {@code -o FILE} of collapsed, flame, join and enrich, and {@code profile -o DIR}
 * (DIR/recording.jfr, samples.jsonl, report.txt, flame.html, profile.jfr). Agents: libstackreq.so's
 * {@code file=}, {@code latency=} and {@code log=LEVEL:PATH}, and libstackreq-perf.so's {@code out=}.
 * Each agent check reads a JVM run shared by the checks of its kind (one per JDK), so a check
 * disabled for a bug costs nothing and needs no run of its own when it is enabled again.
 */
class OutputFilesTest {
    private static final String VICTIM = "not for stackreq\n";
    private static final List<String> UMASK_000 = List.of("sh", "-c", "umask 000; exec \"$@\"", "sh");
    private static final Map<String, Path> AGENT_RUNS = new ConcurrentHashMap<>();

    @TempDir
    static Path shared;
    @TempDir
    Path dir;

    private static Path victim(Path at) throws IOException {
        return Files.writeString(at, VICTIM);
    }

    private static void assertUntouched(Path victim, Path link) throws IOException {
        assertEquals(VICTIM, Files.readString(victim), () -> "written through the link " + link + ": " + victim);
        assertTrue(Files.isSymbolicLink(link), () -> link + " is no longer the link");
    }

    private static Set<PosixFilePermission> mode(Path file) throws IOException {
        return Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
    }

    private static void assertNotWorldWritable(Path path) throws IOException {
        Set<PosixFilePermission> mode = mode(path);
        assertFalse(mode.contains(PosixFilePermission.OTHERS_WRITE),
                () -> path + " is world-writable: " + PosixFilePermissions.toString(mode));
    }

    // ---- CLI ----

    @ParameterizedTest
    @ValueSource(strings = {"collapsed", "flame", "join", "enrich", "export"})
    void cliRefusesToWriteThroughASymbolicLink(String command) throws IOException {
        Seeds seeds = Seeds.get();
        Path target = victim(dir.resolve("victim"));
        Path link = Files.createSymbolicLink(dir.resolve("out"), target);
        CliRun.Result result = switch (command) {
            case "enrich" -> CliRun.inProcess(command, seeds.recording(), "--samples", seeds.samples(), "-o", link);
            case "export" -> CliRun.inProcess(command, seeds.recording(), "--samples", seeds.samples(), "--format",
                    "pprof", "-o", link);
            default -> CliRun.inProcess(command, seeds.recording(), "-o", link);
        };
        String line = CliRun.assertOneLineError(result);
        assertTrue(line.contains("symbolic link") && line.contains(link.toString()), line);
        assertUntouched(target, link);
    }

    /**
     * Links planted at every output path of profile: recording.jfr and samples.jsonl are replaced
     * by fresh files before the JVM starts (stale files are removed anyway); the first result the
     * CLI writes itself (profile.jfr, report.txt or flame.html) is refused.
     */
    @Test
    void profileDoesNotFollowLinksPlantedInItsDirectory() throws IOException {
        Path out = Files.createDirectories(dir.resolve("out"));
        List<Path[]> planted = new ArrayList<>();
        for (String name : new String[] {"recording.jfr", "samples.jsonl", "report.txt", "flame.html", "profile.jfr"}) {
            Path target = victim(dir.resolve("victim-" + name));
            planted.add(new Path[] {target, Files.createSymbolicLink(out.resolve(name), target)});
        }
        Jdk jdk = Jdk.all().findFirst().orElseThrow();
        CliRun.Result result = CliRun.inProcess("profile", "--java", jdk.java(), "--agent-dir", JvmRun.nativeDir(),
                "-o", out, "--", "-cp", JvmRun.testClasses().toAbsolutePath(), Spin.class.getName(), "seconds=0.3");
        assertEquals("2", result.exit(), () -> "profile should refuse to write its results through a link\n" + result);
        String last = result.errLines().get(result.errLines().size() - 1);
        assertTrue(last.contains("symbolic link") && (last.contains("profile.jfr") || last.contains("report.txt")
                || last.contains("flame.html")), last);
        for (Path[] pair : planted) {
            assertEquals(VICTIM, Files.readString(pair[0]), () -> "written through a link: " + pair[0]);
        }
        assertFalse(Files.isSymbolicLink(out.resolve("recording.jfr")), "recording.jfr is still a link");
        assertTrue(Files.size(out.resolve("recording.jfr")) > 0, "the JVM wrote no recording");
    }

    @Test
    void cliOutputsAreNotWorldWritableUnderUmask000() throws IOException {
        Jdk jdk = Jdk.all().findFirst().orElseThrow();
        Path out = dir.resolve("new/profile");
        JvmRun.Result profile = CliRun.child(jdk, dir, "profile", List.of(), UMASK_000, "profile",
                "--java", jdk.java(),
                "--agent-dir", JvmRun.nativeDir(), "-o", out, "--", "-cp",
                JvmRun.testClasses().toAbsolutePath(), Spin.class.getName(), "seconds=0.3");
        assertEquals(0, profile.exitCode(), () -> profile.toString());
        try (Stream<Path> files = Files.walk(dir.resolve("new"))) {
            for (Path path : files.toList()) {
                assertNotWorldWritable(path);
            }
        }
        Path existing = Files.writeString(dir.resolve("existing.txt"), "old");
        Files.setPosixFilePermissions(existing, PosixFilePermissions.fromString("rw-rw-rw-"));
        JvmRun.Result collapsed = CliRun.child(jdk, dir, "collapsed", List.of(), UMASK_000, "collapsed",
                out.resolve("recording.jfr"), "-o", existing);
        assertEquals(0, collapsed.exitCode(), () -> collapsed.toString());
        assertNotWorldWritable(existing);
    }

    // ---- agents ----

    /**
     * One JVM per JDK and kind, writing through libstackreq.so's outputs while libchaos.so makes
     * requests: "links" (file= and latency= at symbolic links), "umask" (file=, latency= and log=
     * at new paths, umask 000), "existing" (file= at an existing rw-rw-rw- file). The JVM must run
     * to its end. Returns the directory with the run's files.
     */
    private static Path agentRun(Jdk jdk, String kind) {
        return AGENT_RUNS.computeIfAbsent(jdk.feature() + "-" + kind, key -> {
            try {
                Path work = Files.createDirectories(shared.resolve(key));
                String options;
                List<String> wrapper = List.of();
                switch (kind) {
                    case "links" -> {
                        for (String name : new String[] {"file", "latency"}) {
                            Files.createSymbolicLink(work.resolve(name + ".link"),
                                    victim(work.resolve(name + ".victim")));
                        }
                        options = "file=" + work.resolve("file.link") + ",latency=" + work.resolve("latency.link");
                    }
                    case "umask" -> {
                        options = "file=" + work.resolve("file.out") + ",latency=" + work.resolve("latency.out")
                                + ",log=warn:" + work.resolve("log.out");
                        wrapper = UMASK_000;
                    }
                    default -> {
                        Path existing = Files.writeString(work.resolve("file.out"), "");
                        Files.setPosixFilePermissions(existing, PosixFilePermissions.fromString("rw-rw-rw-"));
                        options = "file=" + existing;
                    }
                }
                JvmRun.Result result = JvmRun.on(jdk, work).name("agent").withoutRequester()
                        .stackreqOptions(options)
                        .flags("-agentpath:" + Reliability.chaosLibrary().toAbsolutePath())
                        .main(FileSinkApp.class, "out=" + work.resolve("sink.txt"), "requests=400", "hz=1000")
                        .timeout(Duration.ofSeconds(60)).wrapper(wrapper).start();
                assertTrue(result.exitCode() == 0 && !result.crashed() && Files.exists(work.resolve("sink.txt")),
                        () -> "the JVM did not run to its end\n" + result);
                return work;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /**
     * An agent given an output path that is a symbolic link either refuses it (the JVM stops with
     * one line, as for log= and the perf agent's out=, opened at load) or runs without writing
     * through it; either way the link's target is untouched.
     */
    private void assertAgentStartupDoesNotFollow(Jdk jdk, String name, String stackreqOptions, String perfOptions)
            throws IOException {
        Path target = victim(dir.resolve(name + ".victim"));
        Path link = Files.createSymbolicLink(dir.resolve(name + ".link"), target);
        JvmRun run = JvmRun.on(jdk, dir).name(name).withoutRequester()
                .stackreqOptions(stackreqOptions == null ? "" : stackreqOptions + link);
        if (perfOptions != null) {
            run.flags("-agentpath:" + Reliability.perfAgentLibrary().toAbsolutePath() + "=" + perfOptions + link);
        }
        JvmRun.Result result = run.main(Spin.class, "seconds=0.2").timeout(Duration.ofSeconds(60)).start();
        assertFalse(result.crashed(), () -> result.toString());
        assertUntouched(target, link);
    }

    @OnEachJdk
    void agentFileDoesNotFollowASymbolicLink(Jdk jdk) throws IOException {
        Path work = agentRun(jdk, "links");
        assertUntouched(work.resolve("file.victim"), work.resolve("file.link"));
    }

    @OnEachJdk
    void agentLatencyReportDoesNotFollowASymbolicLink(Jdk jdk) throws IOException {
        Path work = agentRun(jdk, "links");
        assertUntouched(work.resolve("latency.victim"), work.resolve("latency.link"));
    }

    @OnEachJdk
    void agentLogDoesNotFollowASymbolicLink(Jdk jdk) throws IOException {
        assertAgentStartupDoesNotFollow(jdk, "log", "log=warn:", null);
    }

    @OnEachJdk
    void perfAgentOutDoesNotFollowASymbolicLink(Jdk jdk) throws IOException {
        assertAgentStartupDoesNotFollow(jdk, "perf", null, "engine=cpu-timer,out=");
    }

    @OnEachJdk
    void agentOutputsAreCreatedNotWorldWritableUnderUmask000(Jdk jdk) throws IOException {
        Path work = agentRun(jdk, "umask");
        for (String name : new String[] {"file.out", "latency.out", "log.out"}) {
            assertTrue(Files.size(work.resolve(name)) > 0, () -> name + " was not written");
            assertNotWorldWritable(work.resolve(name));
        }
    }

    @OnEachJdk
    void agentFileThatExistedWorldWritableIsNotLeftSo(Jdk jdk) throws IOException {
        Path work = agentRun(jdk, "existing");
        assertTrue(Files.size(work.resolve("file.out")) > 0, "file= wrote nothing");
        assertNotWorldWritable(work.resolve("file.out"));
    }
}
