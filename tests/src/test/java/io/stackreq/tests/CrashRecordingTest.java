package io.stackreq.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import io.stackreq.testapp.CrashApp;
import io.stackreq.tests.support.JfrFile;
import io.stackreq.tests.support.JfrPrint;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JmcFile;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEachJdk;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JVM with a continuous disk recording that dies before JFR finishes its chunk keeps in JFR's
 * repository every stackreq event accepted up to a second before its death, in stackreq's side
 * files (docs/continuous.md): {@link CrashApp} requests from CPU timers on four busy threads at
 * 1 kHz for 2.5 s, journals the ids it accepted, and is killed with SIGKILL, crashes with SIGSEGV
 * (a write to address 0), crashes by {@code -XX:+CrashOnOutOfMemoryError} or halts. The repository
 * is assembled and read with JDK 17's {@code jfr} and JMC core, each side file with the dying
 * JDK's own {@code jfr}, and HotSpot's emergency dump, where it writes one, the same way.
 *
 * <p>HotSpot's error reporting is bounded ({@code -XX:ErrorLogTimeout}): it can hang in its
 * emergency dump when the crash signal is taken inside {@code SR_handler}, JFR's thread
 * suspension, with no agent loaded too (a SIGSEGV sent with kill: 2 of 40 plain JDK 21 JVMs under
 * load; 3 of 25 JDK 17 and 1 of 10 JDK 21 JVMs with stackreq, 2026-11-28), and then leaves the
 * chunk it was writing longer than its header says, which no reader takes. A write to address 0
 * crashes the thread that makes it, never inside {@code SR_handler}. A dump left empty is accepted
 * only where the JVM says that its error reporting timed out.
 */
class CrashRecordingTest {
    private static final long SECOND = 1_000_000_000L;
    private static final String REPORTING_TIMED_OUT = "Timeout during error reporting";

    @TempDir
    Path dir;

    @OnEachJdk
    void sigkill(Jdk jdk) throws Exception {
        dies(jdk, "kill", 137);
    }

    @OnEachJdk
    void sigsegv(Jdk jdk) throws Exception {
        dies(jdk, "segv", 134);
    }

    @OnEachJdk
    void crashOnOutOfMemoryError(Jdk jdk) throws Exception {
        dies(jdk, "oom", 134, "-Xmx128m", "-XX:+CrashOnOutOfMemoryError");
    }

    @OnEachJdk
    void runtimeHalt(Jdk jdk) throws Exception {
        dies(jdk, "halt", 3);
    }

    private void dies(Jdk jdk, String way, int exitCode, String... flags) throws Exception {
        // The JDK running the tests (17 or later) assembles and prints: JDK 11 has no jfr assemble.
        Jdk jdk17 = Jdk.current();
        Path repository = dir.resolve("repository");
        Files.createDirectories(repository);
        Path journalFile = dir.resolve("journal.txt");
        JvmRun.Result result = JvmRun.on(jdk, dir).name(way)
                .flags("-XX:FlightRecorderOptions:repository=" + repository,
                        "-XX:StartFlightRecording=name=cont,maxage=1h," + JvmRun.enableEvent(jdk))
                .flags("-XX:ErrorLogTimeout=20").flags(flags)
                .main(CrashApp.class, "out=" + journalFile, "way=" + way, "seconds=2.5")
                .timeout(Duration.ofSeconds(60)).start();
        assertEquals(exitCode, result.exitCode(), () -> "expected the JVM to die by " + way + "\n" + result);
        assertFalse(result.stderr().contains("stackreq events"), () -> "stackreq lost events\n" + result);
        Journal journal = Journal.read(journalFile);

        List<Path> files;
        try (Stream<Path> walk = Files.walk(repository)) {
            files = walk.filter(p -> p.toString().endsWith(".jfr")).sorted().toList();
        }
        List<Path> sideFiles = files.stream().filter(p -> p.getFileName().toString().contains("_stackreq_")).toList();
        assertFalse(sideFiles.isEmpty(), () -> "no side file in the repository: " + files);
        for (Path side : sideFiles) {
            // A chunk of stackreq's own: the dying JVM's own jfr reads it alone.
            String summary = runJfr(jdk, "summary", side.toString());
            assertTrue(summary.contains(JfrFile.REQUEST), () -> "jfr summary " + side + "\n" + summary);
        }
        Path assembled = dir.resolve("assembled.jfr");
        runJfr(jdk17, "assemble", files.get(0).getParent().toString(), assembled.toString());
        StringBuilder measured = new StringBuilder(jdk + " " + way + ": " + journal.accepted.size() + " accepted over "
                + String.format("%.1f", (journal.death - journal.start) / 1e9) + " s; " + files.size()
                + " repository files (" + sideFiles.size() + " stackreq side files)");
        check(journal, "jfr assemble + JDK 17 jfr print", printedIds(jdk17, assembled), measured);
        check(journal, "jfr assemble + JMC core", jmcIds(assembled), measured);

        List<Path> emergencyDumps;
        try (Stream<Path> list = Files.list(dir)) {
            emergencyDumps = list.filter(p -> p.getFileName().toString().matches("hs_\\w+_pid\\d+\\.jfr")).toList();
        }
        for (Path dump : emergencyDumps) {
            if (Files.size(dump) == 0) {
                assertTrue(result.stdout().contains(REPORTING_TIMED_OUT) || result.stderr().contains(REPORTING_TIMED_OUT),
                        () -> dump + " is empty and the JVM did not say its error reporting timed out\n" + result);
                measured.append("; ").append(dump.getFileName()).append(" empty: HotSpot's error reporting timed out");
                continue;
            }
            check(journal, dump.getFileName() + " + JDK 17 jfr print", printedIds(jdk17, dump), measured);
            check(journal, dump.getFileName() + " + JMC core", jmcIds(dump), measured);
        }
        if (emergencyDumps.isEmpty()) {
            measured.append("; no emergency dump");
        }
        System.out.println(measured);
    }

    /**
     * Every id accepted up to a second before the death is there, none twice; appends what was
     * found and how long before the death the first missing event was requested.
     */
    private static void check(Journal journal, String reader, List<Long> ids, StringBuilder measured) {
        Set<Long> found = new HashSet<>();
        List<Long> twice = new ArrayList<>();
        for (long id : ids) {
            if (!found.add(id)) {
                twice.add(id);
            }
        }
        assertTrue(twice.isEmpty(), () -> reader + ": ids twice, e.g. " + twice.subList(0, Math.min(10, twice.size())));
        List<Long> required = journal.acceptedBy(journal.death - SECOND);
        List<Long> missing = required.stream().filter(id -> !found.contains(id)).toList();
        assertTrue(required.size() >= 100, () -> reader + ": only " + required.size() + " ids accepted a second"
                + " before the death");
        assertTrue(missing.isEmpty(), () -> reader + ": " + missing.size() + " of the " + required.size()
                + " ids accepted a second before the death are missing, e.g. "
                + missing.subList(0, Math.min(10, missing.size())));
        long firstLost = journal.accepted.stream().filter(id -> !found.contains(id)).findFirst().orElse(-1L);
        measured.append("; ").append(reader).append(": ").append(found.size()).append(" events, ")
                .append(firstLost < 0 ? "none lost (the last journal line was "
                        + (journal.death - journal.lastLine) / 1_000_000 + " ms before the death)"
                        : "lost from " + (journal.death - journal.issuedAfter(firstLost)) / 1_000_000
                                + " ms before the death");
    }

    private List<Long> printedIds(Jdk jdk17, Path file) {
        return JfrPrint.parse(JfrPrint.print(jdk17, file, JfrFile.REQUEST, dir), JfrFile.REQUEST).stream()
                .map(JfrPrint.Printed::userData).toList();
    }

    private static List<Long> jmcIds(Path file) {
        return JmcFile.requests(JmcFile.load(file)).stream().map(JmcFile.Request::userData).toList();
    }

    private String runJfr(Jdk jdk, String... arguments) {
        List<String> command = new ArrayList<>(List.of(jdk.tool("jfr").toString()));
        command.addAll(List.of(arguments));
        JvmRun.Result result = JvmRun.command(jdk, dir, command).name("jfr-" + arguments[0] + "-" + jdk.feature())
                .timeout(Duration.ofSeconds(60)).start();
        assertEquals(0, result.exitCode(), () -> String.join(" ", command) + " failed\n" + result);
        return result.stdout();
    }

    /** {@link CrashApp}'s journal. */
    static final class Journal {
        /** Accepted ids, ascending, each with the time of the line that listed it. */
        final List<Long> accepted = new ArrayList<>();
        private final List<Long> listedAt = new ArrayList<>();
        private final List<Long> issuedAfterTimes = new ArrayList<>();
        long start;
        long lastLine;
        /** The JVM was alive then: the later of the death line and the last journal line. */
        long death;

        static Journal read(Path file) throws IOException {
            Journal journal = new Journal();
            long previous = 0;
            long deathLine = 0;
            for (String line : Files.readAllLines(file, StandardCharsets.US_ASCII)) {
                String[] parts = line.trim().split(" ");
                if (parts[0].isEmpty()) {
                    continue;
                }
                if (parts[0].equals("death")) {
                    deathLine = Long.parseLong(parts[1]);
                    continue;
                }
                long time = Long.parseLong(parts[0]);
                if (journal.start == 0) {
                    journal.start = time;
                }
                for (int i = 2; i < parts.length; i++) {
                    journal.accepted.add(Long.parseLong(parts[i]));
                    journal.listedAt.add(time);
                    journal.issuedAfterTimes.add(previous);
                }
                journal.lastLine = time;
                previous = time;
            }
            assertTrue(deathLine != 0, () -> file + " has no death line");
            journal.death = Math.max(deathLine, journal.lastLine);
            return journal;
        }

        /** The ids accepted (requested) by this instant. */
        List<Long> acceptedBy(long epochNanos) {
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < accepted.size(); i++) {
                if (listedAt.get(i) <= epochNanos) {
                    ids.add(accepted.get(i));
                }
            }
            return ids;
        }

        /** When the id was not yet requested: the journal line before the one that lists it. */
        long issuedAfter(long id) {
            return issuedAfterTimes.get(accepted.indexOf(id));
        }
    }
}
