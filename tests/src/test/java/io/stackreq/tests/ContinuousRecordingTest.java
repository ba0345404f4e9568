package io.stackreq.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.stackreq.reliability.support.CliRun;
import io.stackreq.testapp.ContinuousApp;
import io.stackreq.testapp.JvmtiError;
import io.stackreq.testapp.Report;
import io.stackreq.tests.support.Accounting;
import io.stackreq.tests.support.JfrFile;
import io.stackreq.tests.support.JfrPrint;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JmcFile;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEachJdk;
import io.stackreq.tests.support.OnEverySupportedJdk;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmc.common.item.IItemCollection;
import org.openjdk.jmc.common.item.IItemIterable;

/**
 * Continuous recordings: jdk.StackTraceRequest events live in JFR's own chunk files, so every
 * dump of a running recording, rotation, maxage purge, settings change and in-memory recording
 * treats them as a JDK event. Each test runs {@link ContinuousApp} with real timers, real
 * {@code jcmd} and real files, and reads the results with the JDK's reader, {@code jfr},
 * JMC core and the stackreq CLI.
 */
class ContinuousRecordingTest {
    private static final long SECOND = 1_000_000_000L;

    @TempDir
    Path dir;
    /** The last runApp's process: its stderr. */
    private JvmRun.Result lastRun;

    @OnEverySupportedJdk
    void dumpsOfARunningRecordingHoldEveryEventRequestedASecondBeforeThem(Jdk jdk) throws Exception {
        Report report = runApp(jdk, "dumps", "");
        Path stopped = report.path("dump.stoppedDump");
        List<RecordedEvent> all = JfrFile.requests(stopped);
        Accounting.assertEachIdExactlyOnce(report.getLongs("accepted"), Accounting.userData(all),
                "stopped recording dumped afterwards");
        Accounting.assertExactAccounting(JfrFile.lastStatistics(stopped), report, all.size());
        assertStacksAndThreads(all);
        Map<Long, Long> requestTime = new HashMap<>();
        for (RecordedEvent event : all) {
            requestTime.put(event.getLong("userData"), epochNanos(event.getStartTime()));
        }
        for (String name : List.of("jcmdNamed", "jcmdAll", "recordingDump", "copyDump", "mxBeanStream")) {
            Path file = report.path("dump." + name);
            long begin = report.getLong("dump." + name + ".begin");
            Set<Long> inDump = idsOnce(file, requestTime.keySet());
            List<Long> missing = requestTime.entrySet().stream().filter(e -> e.getValue() <= begin - SECOND)
                    .map(Map.Entry::getKey).filter(id -> !inDump.contains(id)).sorted().toList();
            assertTrue(missing.isEmpty(), () -> name + ": " + missing.size() + " events requested over a second"
                    + " before the dump are missing, e.g. " + missing.subList(0, Math.min(10, missing.size())));
            assertTrue(inDump.size() >= 100, () -> name + " holds only " + inDump.size() + " events");
        }
        Path range = report.path("dump.jcmdRange");
        idsOnce(range, requestTime.keySet());
        assertEventsInsideChunks(range);
        for (String name : List.of("jcmdNamed", "jcmdAll", "jcmdRange", "recordingDump", "copyDump", "mxBeanStream",
                "stoppedDump")) {
            assertEveryReaderAgrees(jdk, report.path("dump." + name));
        }
    }

    @OnEachJdk
    void maxAgeDropsStackreqEventsWithTheJvmsEventsOfTheSameAge(Jdk jdk) throws Exception {
        // Without a purge the oldest event would be about `seconds` old, 9 s past the bound below
        // at the measured 2.1 s chunks (and still 7 s at twice that on a loaded machine).
        int seconds = 26;
        int maxAge = 14;
        // pending=1000: at the ~500 requests a second two CPU timers give here (the kernel tick
        // caps each at 250 Hz), stackreq asks JFR for a new chunk every 2-3 s.
        Report report = runApp(jdk, "retention", "pending=1000", "seconds=" + seconds, "maxAge=" + maxAge);
        Path retained = report.path("dump.retained");
        long dumpBegin = report.getLong("dump.retained.begin");
        List<Chunk> chunks = chunks(retained);
        long longestChunk = chunks.stream().mapToLong(c -> c.durationNanos).max().orElse(0);
        long firstChunkStart = chunks.stream().mapToLong(c -> c.startNanos).min().orElseThrow();
        List<RecordedEvent> events = JfrFile.requests(retained);
        Set<Long> ids = idsOnce(retained, null);
        long oldest = events.stream().mapToLong(e -> epochNanos(e.getStartTime())).min().orElseThrow();
        long oldestJvm = JfrFile.events(retained, "jdk.ExecutionSample").stream()
                .mapToLong(e -> epochNanos(e.getStartTime())).min().orElseThrow();
        String measured = String.format("%d chunks (longest %.1f s), oldest stackreq event %.1f s before the dump,"
                + " oldest jdk.ExecutionSample %.1f s", chunks.size(), longestChunk / 1e9,
                (dumpBegin - oldest) / 1e9, (dumpBegin - oldestJvm) / 1e9);
        System.out.println(jdk + " retention: " + measured);
        assertTrue(chunks.size() >= 4, () -> "stackreq's pending limit did not rotate chunks: " + measured);
        assertTrue(oldest >= firstChunkStart - SECOND, () -> "a stackreq event is older than the file's first chunk: "
                + measured);
        assertTrue(oldest >= dumpBegin - maxAge * SECOND - longestChunk - SECOND,
                () -> "stackreq events older than maxage plus one chunk survived: " + measured);
        assertTrue(Math.abs(oldest - oldestJvm) <= longestChunk + SECOND,
                () -> "stackreq's oldest event and the JVM's are more than a chunk apart: " + measured);
        Timeline timeline = new Timeline(report.get("timeline"));
        long low = timeline.issuedAt(dumpBegin - (maxAge - 2) * SECOND);
        long high = timeline.issuedAt(dumpBegin - SECOND);
        Set<Long> accepted = new HashSet<>();
        for (long id : report.getLongs("accepted")) {
            accepted.add(id);
        }
        List<Long> missing = accepted.stream().filter(id -> id > low && id <= high && !ids.contains(id)).sorted()
                .toList();
        assertTrue(high - low > 300, () -> "too few requests in the retained window: ids " + low + ".." + high);
        assertTrue(missing.isEmpty(), () -> missing.size() + " events of the last " + (maxAge - 2)
                + " s are missing, e.g. " + missing.subList(0, Math.min(10, missing.size())) + "; " + measured);
    }

    @OnEachJdk
    void settingsChangedOnRunningRecordingsReachTheNextRequests(Jdk jdk) throws Exception {
        Report report = runApp(jdk, "settings", "");
        Set<Long> expected = new HashSet<>();
        StringBuilder delays = new StringBuilder();
        for (String phase : List.of("initiallyOff", "enabled", "disabled", "secondStarted", "secondStopped",
                "jcmdStarted", "jcmdStopped", "enabledAgain")) {
            int wanted = phase.endsWith("Off") || phase.endsWith("disabled") || phase.endsWith("Stopped")
                    ? JvmtiError.NOT_AVAILABLE : JvmtiError.NONE;
            assertEquals(wanted, report.getInt("phase." + phase + ".rc"),
                    () -> phase + ": requests never returned " + wanted + " within 10 s\n" + report);
            delays.append(phase).append(' ').append(report.getLong("phase." + phase + ".delayMicros") / 1000.0)
                    .append(" ms; ");
            for (long id : report.getLongs("phase." + phase + ".ids")) {
                expected.add(id);
            }
        }
        System.out.println(jdk + " settings changes reached the request gate after: " + delays);
        // The emitter reads JFR's own enabled flag of the event (a JDK internal); without it, it
        // says so in one line and calls Java at each wake-up instead, which must not go unnoticed.
        assertFalse(lastRun.stderr().contains("PlatformEventType.enabled not found"),
                () -> "the settings poll fell back to calling Java at each wake-up:\n" + lastRun.stderr());
        Path file = report.path("dump.final");
        Map<Long, Integer> seen = new TreeMap<>();
        for (RecordedEvent event : JfrFile.requests(file)) {
            seen.merge(event.getLong("userData"), 1, Integer::sum);
        }
        long throttledFirst = report.getLong("throttled.first");
        long throttledLast = report.getLong("throttled.last");
        long throttledEvents = seen.keySet().stream().filter(id -> id >= throttledFirst && id <= throttledLast).count();
        assertTrue(throttledEvents >= 1 && throttledEvents <= 20,
                () -> throttledEvents + " events of 200 requests made under throttle 5/s");
        for (long id = report.getLong("unthrottled.first"); id <= report.getLong("unthrottled.last"); id++) {
            expected.add(id);
        }
        Set<Long> unexpected = new HashSet<>(seen.keySet());
        unexpected.removeIf(id -> expected.contains(id) || (id >= throttledFirst && id <= throttledLast));
        Set<Long> missing = new HashSet<>(expected);
        missing.removeAll(seen.keySet());
        assertTrue(unexpected.isEmpty() && missing.isEmpty(), () -> "events for requests that were refused: "
                + unexpected + "; accepted requests without an event: " + missing);
        assertTrue(seen.values().stream().allMatch(n -> n == 1), "an id has two events");
    }

    @OnEachJdk
    void inMemoryRecordingsHoldTheEventsInDumpsAndAtStop(Jdk jdk) throws Exception {
        Report report = runApp(jdk, "memory", "");
        Path running = report.path("dump.running");
        Path stopped = report.path("dump.stopped");
        List<RecordedEvent> dumped = JfrFile.requests(running);
        List<RecordedEvent> atStop = JfrFile.requests(stopped);
        List<Long> both = new ArrayList<>(Accounting.userData(dumped));
        both.addAll(Accounting.userData(atStop));
        // JFR moves an in-memory recording's data to disk when it is dumped, so the file written
        // at stop holds what came after the dump: the two files together hold each id once.
        Accounting.assertEachIdExactlyOnce(report.getLongs("accepted"), both, "dump + file at stop");
        long begin = report.getLong("dump.running.begin");
        long late = atStop.stream().filter(e -> epochNanos(e.getStartTime()) <= begin - SECOND).count();
        assertEquals(0, late, "events requested a second before the dump are missing from it");
        assertTrue(dumped.size() >= 50, () -> "the dump of the in-memory recording holds " + dumped.size());
        assertTrue(atStop.size() >= 50, () -> "the file at stop holds " + atStop.size());
    }

    @OnEverySupportedJdk
    void sigkillLeavesAReadableRepositoryHoldingAllButTheLastChunksEvents(Jdk jdk) throws Exception {
        Path repository = dir.resolve("repository");
        Files.createDirectories(repository);
        Path out = dir.resolve("kill.txt");
        JvmRun.Result result = JvmRun.on(jdk, dir).name("kill")
                .flags("-XX:FlightRecorderOptions:repository=" + repository,
                        "-XX:StartFlightRecording=name=cont," + JvmRun.enableEvent(jdk))
                .main(ContinuousApp.class, "out=" + out, "dir=" + dir, "scenario=kill")
                .timeout(Duration.ofSeconds(120)).start();
        assertEquals(137, result.exitCode(), () -> "expected death by SIGKILL\n" + result);
        Report report = Report.read(out);
        List<Path> files;
        try (Stream<Path> walk = Files.walk(repository)) {
            // JDK 11 writes a chunk into NAME.part and leaves NAME.jfr empty until it finishes it.
            files = walk.filter(p -> p.toString().endsWith(".jfr") && p.toFile().length() > 0).sorted().toList();
        }
        assertTrue(files.size() >= 2, () -> "repository holds " + files);
        // The chunk JFR was writing when the JVM died is JFR's own (JDK 25's jfr refuses it as
        // "stuck in locked stream state"): the last file that is not one of stackreq's side files
        // (which hold the events since that chunk began, CrashRecordingTest). Every finished
        // chunk, and so every stackreq chunk, must read everywhere. On JDK 11 that chunk is the
        // .part file, which is not among them.
        Path unfinished = jdk.feature() < 17 ? null
                : files.stream().filter(p -> !p.getFileName().toString().contains("_stackreq_"))
                        .reduce((first, second) -> second).orElseThrow();
        Set<Long> ids = new HashSet<>();
        for (Path file : files) {
            if (!file.equals(unfinished)) {
                runJfr(jdk, "summary", file);
            }
            JmcFile.load(file);
            for (RecordedEvent event : JfrFile.requests(file)) {
                assertTrue(ids.add(event.getLong("userData")), () -> "an id in two chunk files: "
                        + JfrFile.describe(event));
            }
        }
        Timeline timeline = new Timeline(report.get("timeline"));
        // The second dump finished a chunk: every request made a second before it is in that
        // chunk's file or an earlier one; what came after is the events SIGKILL may take.
        long kept = timeline.issuedAt(report.getLong("dump.second.begin") - SECOND);
        List<Long> lost = new ArrayList<>();
        for (long id = 1; id <= kept; id++) {
            if (!ids.contains(id)) {
                lost.add(id);
            }
        }
        System.out.println(jdk + " SIGKILL: " + ids.size() + " events in " + files.size()
                + " repository files; ids requested up to a second before the last finished chunk: " + kept);
        assertTrue(kept > 50, () -> "too few requests before the last finished chunk: " + kept);
        assertTrue(lost.isEmpty(), () -> lost.size() + " requests made before the last finished chunk have no"
                + " event in the repository, e.g. " + lost.subList(0, Math.min(10, lost.size())));
    }

    @OnEachJdk
    void withoutTheChunkHookStackreqSaysSoAndAppendsAtStop(Jdk jdk) throws Exception {
        Path recording = dir.resolve("fallback.jfr");
        Path out = dir.resolve("fallback.txt");
        JvmRun.Result result = JvmRun.on(jdk, dir).stackreqOptions("continuous=off")
                .main(io.stackreq.testapp.BusyThreads.class, "out=" + out, "threads=2", "seconds=1.5",
                        "recordTo=" + recording).run();
        List<String> said = result.stderr().lines().filter(l -> l.contains("continuous recordings unavailable"))
                .toList();
        assertEquals(1, said.size(), () -> "one line saying the hook is off\n" + result);
        assertTrue(said.get(0).contains("continuous=off"), said.get(0));
        Report report = Report.read(out);
        List<RecordedEvent> events = JfrFile.requests(recording);
        Accounting.assertEachIdExactlyOnce(report.getLongs("accepted"), Accounting.userData(events), "append at stop");
        Accounting.assertExactAccounting(JfrFile.lastStatistics(recording), report, events.size());
    }

    private Report runApp(Jdk jdk, String scenario, String stackreqOptions, String... extra) throws IOException {
        Path out = dir.resolve(scenario + ".txt");
        List<String> args = new ArrayList<>(List.of("out=" + out, "dir=" + dir, "scenario=" + scenario,
                "jfc=" + JvmRun.eventSettings()));
        args.addAll(List.of(extra));
        lastRun = JvmRun.on(jdk, dir).name(scenario).stackreqOptions(stackreqOptions)
                .main(ContinuousApp.class, args.toArray(String[]::new)).timeout(Duration.ofSeconds(180)).run();
        return Report.read(out);
    }

    /** The ids of the file's events, failing on an id twice or (when known is given) an unknown id. */
    private static Set<Long> idsOnce(Path file, Set<Long> known) {
        Set<Long> ids = new HashSet<>();
        for (RecordedEvent event : JfrFile.requests(file)) {
            long id = event.getLong("userData");
            assertTrue(ids.add(id), () -> file.getFileName() + ": two events for id " + id);
            assertTrue(known == null || known.contains(id), () -> file.getFileName() + ": event for unknown id "
                    + id);
        }
        return ids;
    }

    private static void assertStacksAndThreads(List<RecordedEvent> events) {
        long onTop = 0;
        for (RecordedEvent event : events) {
            assertTrue(event.getThread() != null, () -> "no thread: " + JfrFile.describe(event));
            if (!event.getBoolean("failed")) {
                assertTrue(!event.getStackTrace().getFrames().isEmpty(), () -> "no frames: "
                        + JfrFile.describe(event));
                if ("io.stackreq.testapp.BusyThreads.burn".equals(JfrFile.topMethod(event))) {
                    onTop++;
                }
            }
        }
        long burn = onTop;
        assertTrue(burn >= events.size() * 0.8, () -> "only " + burn + " of " + events.size()
                + " events have BusyThreads.burn on top");
    }

    /** Every stackreq event of the file lies in the time range of the file's chunks. */
    private static void assertEventsInsideChunks(Path file) throws IOException {
        List<Chunk> chunks = chunks(file);
        long from = chunks.stream().mapToLong(c -> c.startNanos).min().orElseThrow();
        long to = chunks.stream().mapToLong(c -> c.startNanos + c.durationNanos).max().orElseThrow();
        List<RecordedEvent> outside = JfrFile.requests(file).stream()
                .filter(e -> epochNanos(e.getStartTime()) < from || epochNanos(e.getStartTime()) > to).toList();
        assertTrue(outside.isEmpty(), () -> outside.size() + " events outside the chunks' time range "
                + Instant.ofEpochSecond(0, from) + " .. " + Instant.ofEpochSecond(0, to) + ", e.g. "
                + JfrFile.describe(outside.get(0)));
    }

    /** jfr print, jfr summary, JMC core and stackreq report see the same events, as one type. */
    private void assertEveryReaderAgrees(Jdk jdk, Path file) throws Exception {
        int count = JfrFile.requests(file).size();
        assertEquals(count, JfrPrint.parse(JfrPrint.print(jdk, file, JfrFile.REQUEST, dir), JfrFile.REQUEST).size(),
                () -> "jfr print " + file);
        String summary = runJfr(jdk, "summary", file);
        long summarized = summary.lines().map(String::trim).filter(l -> l.startsWith(JfrFile.REQUEST + " "))
                .mapToLong(l -> Long.parseLong(l.split("\\s+")[1])).sum();
        assertEquals(count, summarized, () -> "jfr summary counts of " + file + "\n" + summary);
        IItemCollection items = JmcFile.load(file);
        assertEquals(count, JmcFile.requests(items).size(), () -> "JMC core on " + file);
        Set<Object> types = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        for (IItemIterable iterable : JmcFile.requestItems(items)) {
            types.add(iterable.getType());
        }
        assertEquals(1, types.size(), () -> "JMC sees jdk.StackTraceRequest as one type in " + file);
        CliRun.Result report = CliRun.inProcess("report", file);
        assertEquals("0", report.exit(), () -> "stackreq report\n" + report);
        assertTrue(report.out().contains("BusyThreads.burn"), () -> "stackreq report\n" + report);
    }

    private String runJfr(Jdk jdk, String command, Path file) throws IOException, InterruptedException {
        Path output = dir.resolve("jfr-" + command + "-" + file.getFileName() + ".txt");
        Process process = new ProcessBuilder(jdk.tool("jfr").toString(), command, file.toString())
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "jfr " + command + " did not finish");
        String text = Files.readString(output, StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), () -> "jfr " + command + " " + file + " failed:\n" + text);
        return text;
    }

    private static long epochNanos(Instant instant) {
        return instant.getEpochSecond() * SECOND + instant.getNano();
    }

    /** A chunk header's time range. */
    record Chunk(long startNanos, long durationNanos) {
    }

    static List<Chunk> chunks(Path file) throws IOException {
        List<Chunk> chunks = new ArrayList<>();
        try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
            long position = 0;
            while (position + 68 <= in.length()) {
                in.seek(position);
                long at = position;
                assertEquals(0x464c5200, in.readInt(), () -> file + ": no chunk header at " + at);
                in.seek(position + 8);
                long size = in.readLong();
                in.seek(position + 32);
                chunks.add(new Chunk(in.readLong(), in.readLong()));
                assertTrue(size >= 68, () -> file + ": chunk size " + size + " at " + at);
                position += size;
            }
        }
        return chunks;
    }

    /** How many ids had been requested when: {@code epochNanos:issued} pairs from the app. */
    static final class Timeline {
        private final TreeMap<Long, Long> issued = new TreeMap<>();

        Timeline(String text) {
            for (String point : text.split(" ")) {
                String[] parts = point.split(":");
                issued.put(Long.parseLong(parts[0]), Long.parseLong(parts[1]));
            }
        }

        /** Ids up to the returned one had all been requested by this instant (0 before the first point). */
        long issuedAt(long epochNanos) {
            Map.Entry<Long, Long> at = issued.floorEntry(epochNanos);
            return at == null ? 0 : at.getValue();
        }
    }
}
