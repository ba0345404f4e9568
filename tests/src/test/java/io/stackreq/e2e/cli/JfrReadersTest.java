package io.stackreq.e2e.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

import com.google.protobuf.UnknownFieldSet;

import io.stackreq.testapp.ContinuousApp;
import io.stackreq.tests.support.JfrChunks;
import io.stackreq.tests.support.JfrFile;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JmcFile;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEachJdk;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmc.common.item.IItemCollection;
import org.openjdk.jmc.common.item.IItemIterable;
import org.openjdk.jmc.common.item.ItemFilters;

/**
 * No reader breaks: every recording that carries stackreq's events (a {@code profile} run's
 * recording.jfr, a {@code jcmd JFR.dump} of a continuous recording, the repository of a JVM killed
 * with SIGKILL after {@code jfr assemble}) and every JFR file the CLI writes (each {@code .jfr} of
 * the profile's output directory, and {@code enrich}'s) reads in the readers users open, run
 * unmodified as separate processes: async-profiler's converter 4.2 and 4.5 (collapsed, html, pprof;
 * its default mode and {@code --cpu}), the JDK's {@code jfr} of 17 and 25 ({@code print},
 * {@code summary}, {@code view} on 25; CI configures both), of 21 on the files of the newest JDK
 * tested, and of the profiled JDK (17 and later), and JMC core.
 * Each reader must count, for each type it reads, what the JDK's own reader counts in-process;
 * those counts are tied to what the agent accepted (recording.jfr) and what the report matched
 * (the CLI's files). Readers that cannot run here are checked by their rules
 * (docs/readers.md): every type Grafana Pyroscope's jfr-parser requires declared, frames inline,
 * symbols UTF-8, the JDK's frame-type keys, the JDK's field order where readers read by position.
 *
 * <p>Tagged {@code alone} to share the profile run of the other CLI tests (they run in that
 * execution's JVM); nothing here measures CPU, so its reader processes run two at a time.
 */
@Tag("alone")
class JfrReadersTest {
    private static final String REQUEST = JfrFile.REQUEST;
    private static final List<String> SAMPLE_TYPES =
            List.of("jdk.ExecutionSample", "jdk.NativeMethodSample", "jdk.CPUTimeSample");
    private static final List<String> CONVERTERS = List.of("4.2", "4.5");
    private static final List<String> FORMATS = List.of("collapsed", "html", "pprof");
    /** What Grafana Pyroscope's jfr-parser refuses a chunk without (its checkTypes). */
    private static final List<String> PYROSCOPE_TYPES = List.of("int", "long", "short", "float", "boolean",
            "java.lang.String", "jdk.types.FrameType", "jdk.types.ThreadState", "java.lang.Thread", "java.lang.Class",
            "jdk.types.Method", "jdk.types.Package", "jdk.types.Symbol", "jdk.types.StackTrace",
            "jdk.types.ClassLoader", "jdk.types.StackFrame");
    /** The JDK's frame types by their key (JfrFrameType), which readers such as async-profiler's take as the type. */
    private static final Map<Long, String> JDK_FRAME_TYPES =
            Map.of(0L, "Interpreted", 1L, "JIT compiled", 2L, "Inlined", 3L, "Native");
    /** stackreq's undetermined Java frame: a key async-profiler's converter reads as a Java frame with its class. */
    private static final long UNDETERMINED_KEY = 6;
    /** Leading fields readers read by position, in the JDK's order (async-profiler's JfrReader). */
    private static final Map<String, List<String>> POSITIONAL = Map.of(
            "java.lang.Thread", List.of("osName", "osThreadId", "javaName", "javaThreadId"),
            "java.lang.Class", List.of("classLoader", "name", "package", "modifiers"),
            "jdk.types.Method", List.of("type", "name", "descriptor", "modifiers", "hidden"),
            "jdk.types.StackFrame", List.of("method", "lineNumber", "bytecodeIndex", "type"),
            "jdk.ExecutionSample", List.of("startTime", "sampledThread", "stackTrace", "state"));

    @TempDir
    Path dir;

    /** A file under test: its label, its path, and what the JDK's reader counts in it per type. */
    private record Subject(String label, Path file, Map<String, Long> counts, long cpuSamples,
            boolean unfinishedJvmChunk, Set<String> firstChunkTypes) {
        /** The types whose counts every reader must agree on: stackreq's, and the sample types. */
        Set<String> checkedTypes() {
            Set<String> types = new HashSet<>();
            for (String type : counts.keySet()) {
                if (type.equals(REQUEST) || type.startsWith("stackreq.") || SAMPLE_TYPES.contains(type)) {
                    types.add(type);
                }
            }
            return types;
        }

        long count(String type) {
            return counts.getOrDefault(type, 0L);
        }

        /** What async-profiler's converter sums in its default mode. */
        long samples() {
            return SAMPLE_TYPES.stream().mapToLong(this::count).sum();
        }
    }

    @OnEachJdk
    void recordingsWithStackreqsEventsReadInEveryReader(Jdk jdk) throws Exception {
        long begin = System.nanoTime();
        Profiles.Profiled run = Profiles.twoPhase(jdk);
        long profiled = System.nanoTime();
        Path flat = Files.createDirectories(dir.resolve("files"));
        List<Subject> subjects = new ArrayList<>();
        Subject recording = subject(flat, "recording", run.file("recording.jfr"), false);
        var statistics = JfrFile.lastStatistics(recording.file);
        long accepted = statistics.getLong("accepted");
        assertEquals(0, statistics.getLong("pending"), () -> "pending events in " + recording.file);
        assertEquals(accepted, statistics.getLong("emitted") + statistics.getLong("dropped"),
                () -> "accepted != emitted + dropped in " + recording.file);
        assertEquals(statistics.getLong("emitted"), recording.count(REQUEST),
                () -> "the JDK's reader does not count every emitted event in " + recording.file);
        assertTrue(recording.count(REQUEST) >= 1000, () -> "only " + recording.count(REQUEST) + " events");
        subjects.add(recording);
        subjects.addAll(continuousRecordings(jdk, flat));
        readAll(jdk, flat, subjects, begin, profiled);
    }

    @OnEachJdk
    void everyJfrFileTheCliWritesReadsInEveryReader(Jdk jdk) throws Exception {
        long begin = System.nanoTime();
        Profiles.Profiled run = Profiles.twoPhase(jdk);
        long profiled = System.nanoTime();
        Path flat = Files.createDirectories(dir.resolve("files"));
        long matched = run.report().path("matched").asLong();
        List<Path> written = new ArrayList<>();
        try (Stream<Path> list = Files.list(run.out())) {
            list.filter(p -> p.toString().endsWith(".jfr") && !p.getFileName().toString().equals("recording.jfr"))
                    .sorted().forEach(written::add);
        }
        Path enriched = dir.resolve("enriched.jfr");
        JvmRun.Result enrich = JvmRun.cli(Jdk.current(), dir, List.of("enrich", run.file("recording.jfr").toString(),
                "--samples", run.file("samples.jsonl").toString(), "-o", enriched.toString())).name("enrich")
                .timeout(Duration.ofSeconds(120)).start();
        assertEquals(0, enrich.exitCode(), () -> "enrich failed\n" + enrich);
        written.add(enriched);
        assertTrue(written.size() >= 2, () -> "the CLI wrote no JFR file besides recording.jfr: " + written);
        List<Subject> subjects = new ArrayList<>();
        for (Path file : written) {
            Subject cli = subject(flat, "cli-" + file.getFileName().toString().replace(".jfr", ""), file, false);
            String samples = cli.counts.containsKey("jdk.ExecutionSample") ? "jdk.ExecutionSample"
                    : "stackreq.PerfSample";
            assertEquals(matched, cli.count(samples), () -> cli.label + ": " + samples + " events against the "
                    + matched + " samples the report matched; " + cli.counts);
            subjects.add(cli);
        }
        readAll(jdk, flat, subjects, begin, profiled);
    }

    /** Every reader on every subject, two processes at a time; fails listing every problem found. */
    private void readAll(Jdk jdk, Path flat, List<Subject> subjects, long begin, long profiled) throws Exception {
        List<Jdk> readers = readerJdks(jdk);
        long prepared = System.nanoTime();
        List<String> problems = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<List<String>>> checks = new ArrayList<>();
            for (String version : CONVERTERS) {
                for (String format : FORMATS) {
                    for (boolean cpu : List.of(false, true)) {
                        checks.add(pool.submit(() -> convert(jdk, version, format, cpu, flat, subjects)));
                    }
                }
            }
            Jdk newest = Jdk.all().reduce((a, b) -> b).orElseThrow();
            for (Jdk reader : readers) {
                if (reader.feature() == 21 && !jdk.equals(newest)) {
                    continue;
                }
                for (Subject subject : subjects) {
                    // The jfr of JDK 21 and later refuses a chunk the JVM did not finish ("stuck in
                    // locked stream state"; view waits for it forever), with or without stackreq:
                    // the killed JVM's own. The repository without it is a subject of its own.
                    if (!(subject.unfinishedJvmChunk && reader.feature() >= 21)) {
                        checks.add(pool.submit(() -> jfrTool(reader, subject)));
                    }
                }
            }
            for (Subject subject : subjects) {
                problems.addAll(jmc(subject));
                problems.addAll(rules(subject));
            }
            for (Future<List<String>> check : checks) {
                problems.addAll(get(check));
            }
        } finally {
            pool.shutdownNow();
        }
        StringBuilder measured = new StringBuilder(jdk + " readers: ");
        for (Subject subject : subjects) {
            measured.append(subject.label).append(' ').append(new TreeMap<>(subject.counts).entrySet().stream()
                    .filter(e -> subject.checkedTypes().contains(e.getKey())).toList()).append("; ");
        }
        long end = System.nanoTime();
        measured.append(String.format("profile run %.1f s (shared), files %.1f s, readers %.1f s",
                (profiled - begin) / 1e9, (prepared - profiled) / 1e9, (end - prepared) / 1e9));
        System.out.println(measured);
        assertTrue(problems.isEmpty(), () -> problems.size() + " problems:\n" + String.join("\n", problems));
    }

    /**
     * The JDKs whose jfr tool reads the files: the tests' own (17), 21 and 25 where configured (CI
     * configures both), and the profiled JDK when it has a jfr tool that reads other JDKs' files (17+).
     */
    private static List<Jdk> readerJdks(Jdk profiled) {
        Set<Integer> features = new TreeSet<>(List.of(Jdk.current().feature()));
        if (profiled.feature() >= 17) {
            features.add(profiled.feature());
        }
        Jdk.everySupported().map(Jdk::feature).filter(f -> f == 21 || f == 25).forEach(features::add);
        List<Jdk> readers = new ArrayList<>();
        for (int feature : features) {
            readers.add(feature == Jdk.current().feature() ? Jdk.current()
                    : Jdk.everySupported().filter(j -> j.feature() == feature).findFirst().orElseThrow());
        }
        return readers;
    }

    /**
     * A continuous recording dumped with {@code jcmd JFR.dump} while it runs, then the JVM killed
     * with SIGKILL ({@link ContinuousApp}'s scenario {@code kill}) and its repository assembled with
     * {@code jfr assemble}: as it is, and without the chunk file the JVM was writing when it died
     * (the last of its own, not one of stackreq's side files).
     */
    private List<Subject> continuousRecordings(Jdk jdk, Path flat) throws IOException {
        Path work = Files.createDirectories(dir.resolve("continuous"));
        Path repository = Files.createDirectories(work.resolve("repository"));
        JvmRun.Result result = JvmRun.on(jdk, work).name("kill")
                .flags("-XX:FlightRecorderOptions:repository=" + repository,
                        "-XX:StartFlightRecording=name=cont," + JvmRun.enableEvent(jdk))
                .main(ContinuousApp.class, "out=" + work.resolve("kill.txt"), "dir=" + work, "scenario=kill")
                .timeout(Duration.ofSeconds(120)).start();
        assertEquals(137, result.exitCode(), () -> "expected death by SIGKILL\n" + result);
        Subject dump = subject(flat, "jcmd-dump", work.resolve("second.jfr"), false);
        List<Path> files;
        try (Stream<Path> walk = Files.walk(repository)) {
            files = walk.filter(p -> p.toString().endsWith(".jfr")).sorted().toList();
        }
        Path unfinished = files.stream().filter(p -> !p.getFileName().toString().contains("_stackreq_"))
                .reduce((first, second) -> second).orElseThrow();
        assertTrue(files.stream().anyMatch(p -> p.getFileName().toString().contains("_stackreq_")),
                () -> "no stackreq side file in the repository: " + files);
        Path finished = Files.createDirectories(work.resolve("finished"));
        for (Path file : files) {
            if (!file.equals(unfinished)) {
                Files.copy(file, finished.resolve(file.getFileName()));
            }
        }
        Subject killed = subject(flat, "sigkill-assembled", assemble(jdk, work, unfinished.getParent(), "assembled"),
                true);
        Subject killedFinished = subject(flat, "sigkill-finished-chunks", assemble(jdk, work, finished, "finished"),
                false);
        for (Subject subject : List.of(dump, killed, killedFinished)) {
            assertTrue(subject.count(REQUEST) >= 100, () -> subject.label + " holds " + subject.counts);
            Set<Long> ids = new HashSet<>();
            for (RecordedEvent event : JfrFile.requests(subject.file)) {
                long id = event.getLong("userData");
                assertTrue(ids.add(id), () -> subject.label + ": two events for id " + id);
            }
        }
        return List.of(dump, killed, killedFinished);
    }

    private static Path assemble(Jdk jdk, Path work, Path chunks, String name) {
        Path assembled = work.resolve(name + ".jfr");
        JvmRun.Result result = JvmRun.command(jdk, work, List.of(jdk.tool("jfr").toString(), "assemble",
                chunks.toString(), assembled.toString())).name("assemble-" + name).timeout(Duration.ofSeconds(60))
                .start();
        assertEquals(0, result.exitCode(), () -> "jfr assemble failed\n" + result);
        return assembled;
    }

    /** Counts the file's events with the JDK's reader and links it into the flat directory under its label. */
    private static Subject subject(Path flat, String label, Path file, boolean unfinishedJvmChunk)
            throws IOException {
        Map<String, Long> counts = new TreeMap<>();
        long cpuSamples = 0;
        try (RecordingFile recording = new RecordingFile(file)) {
            while (recording.hasMoreEvents()) {
                RecordedEvent event = recording.readEvent();
                String type = event.getEventType().getName();
                counts.merge(type, 1L, Long::sum);
                if ((type.equals("jdk.ExecutionSample") || type.equals("jdk.NativeMethodSample"))
                        && "STATE_DEFAULT".equals(event.getString("state"))) {
                    cpuSamples++;
                }
            }
        }
        Path link = flat.resolve(label + ".jfr");
        Files.createSymbolicLink(link, file.toAbsolutePath());
        Set<String> firstChunkTypes = new HashSet<>();
        List<JfrChunks.Chunk> chunks = JfrChunks.read(file);
        if (!chunks.isEmpty()) {
            chunks.get(0).types().values().forEach(t -> firstChunkTypes.add(t.name()));
        }
        return new Subject(label, link, counts, cpuSamples, unfinishedJvmChunk, firstChunkTypes);
    }

    /**
     * One run of async-profiler's converter over every file (its {@code <input>... <dir>} form):
     * each output must hold the samples the JDK's reader counts (in {@code --cpu} mode those in
     * async-profiler's own running state, STATE_DEFAULT, which the JVM never writes).
     */
    private List<String> convert(Jdk jdk, String version, String format, boolean cpu, Path flat,
            List<Subject> subjects) throws IOException {
        String name = "jfrconv-" + version + "-" + format + (cpu ? "-cpu" : "");
        Path out = Files.createDirectories(dir.resolve(name));
        List<String> command = new ArrayList<>(List.of(Jdk.current().java().toString(), "-jar",
                converterJar(version).toString(), "-o", format));
        if (cpu) {
            command.add("--cpu");
        }
        subjects.forEach(s -> command.add(s.file.toString()));
        command.add(out.toString());
        JvmRun.Result result = JvmRun.command(Jdk.current(), dir, command).name(name)
                .timeout(Duration.ofSeconds(180)).start();
        List<String> problems = new ArrayList<>();
        if (result.exitCode() != 0 || !result.stderr().isBlank()) {
            problems.add(name + " failed on " + jdk + "'s files:\n" + JvmRun.tail(result.toString(), 4000));
        }
        for (Subject subject : subjects) {
            Path output = out.resolve(subject.label + "." + format);
            // It converts one file after the other and says when each is done ("# 0.3 s").
            if (!result.stdout().contains(subject.label + "." + format + " # ")) {
                continue;
            }
            long expected = cpu ? subject.cpuSamples : subject.samples();
            long read = switch (format) {
                case "collapsed" -> collapsedTotal(output);
                case "html" -> htmlTotal(output);
                default -> pprofTotal(output);
            };
            if (read != expected) {
                problems.add(name + " " + subject.label + ": " + read + " samples, the JDK's reader " + expected);
            }
        }
        return problems;
    }

    private static Path converterJar(String version) {
        Path jar = Path.of(System.getProperty("stackreq.jfr.converter.dir"), "jfr-converter-" + version + ".jar");
        assertTrue(Files.isRegularFile(jar), () -> jar + " is missing: tests/pom.xml copies it from Maven Central");
        return jar;
    }

    private static long collapsedTotal(Path file) throws IOException {
        long total = 0;
        for (String line : Files.readAllLines(file)) {
            if (!line.isBlank()) {
                total += Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return total;
    }

    /** The root frame's total: the first frame call after {@code unpack(cpool);}, n(key,total) or f(key,level,x,total). */
    private static long htmlTotal(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file);
        int at = lines.indexOf("unpack(cpool);");
        if (at < 0) {
            throw new AssertionError(file + " has no unpack(cpool); line");
        }
        for (String line : lines.subList(at + 1, lines.size())) {
            if (line.matches("[fnu]\\([0-9,]*\\)")) {
                String[] args = line.substring(2, line.length() - 1).split(",");
                int totalAt = line.charAt(0) == 'f' ? 3 : 1;
                return args.length > totalAt ? Long.parseLong(args[totalAt]) : 0;
            }
        }
        return 0;
    }

    /** Sum over the profile's samples (field 2) of their value (field 2): samples in the default, count mode. */
    private static long pprofTotal(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        if (bytes.length >= 2 && (bytes[0] & 0xff) == 0x1f && (bytes[1] & 0xff) == 0x8b) {
            try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
                bytes = in.readAllBytes();
            }
        }
        long total = 0;
        UnknownFieldSet profile = UnknownFieldSet.parseFrom(bytes);
        UnknownFieldSet.Field samples = profile.getField(2);
        for (var sample : samples.getLengthDelimitedList()) {
            UnknownFieldSet.Field values = UnknownFieldSet.parseFrom(sample).getField(2);
            if (!values.getVarintList().isEmpty()) {
                total += values.getVarintList().get(0);
            }
        }
        return total;
    }

    /** The JDK's jfr: print (events of the checked types), summary, and on 21+ view of stackreq's types. */
    private List<String> jfrTool(Jdk reader, Subject subject) {
        List<String> problems = new ArrayList<>();
        String who = "jfr of JDK " + reader.feature() + " ";
        Set<String> types = subject.checkedTypes();
        String print = jfr(reader, subject, problems, "print", "--events", String.join(",", types),
                subject.file.toString());
        if (print != null) {
            compare(problems, who + "print " + subject.label, subject, types,
                    type -> print.lines().filter(l -> l.equals(type + " {")).count());
        }
        String summary = jfr(reader, subject, problems, "summary", subject.file.toString());
        if (summary != null) {
            compare(problems, who + "summary " + subject.label, subject, types, type -> summary.lines()
                    .map(String::trim).filter(l -> l.startsWith(type + " "))
                    .mapToLong(l -> Long.parseLong(l.split("\\s+")[1])).sum());
        }
        if (reader.feature() >= 21) {
            // A view lists every event of its type: stackreq's own types, and a CLI file's samples.
            // It finds a type by name only when the file's first chunk declares it; a type only
            // later chunks declare (stackreq.RequestStatistics after the JVM's chunk) it does not
            // know, and says so: checked as such, so that the day it reads them this test says it.
            for (String type : types) {
                if (!type.equals(REQUEST) && !type.startsWith("stackreq.")
                        && !(subject.label.startsWith("cli-") && type.equals("jdk.ExecutionSample"))) {
                    continue;
                }
                JvmRun.Result view = jfrRun(reader, subject, "view", "--width", "200", type, subject.file.toString());
                boolean declared = subject.firstChunkTypes.contains(type);
                String unknown = "Could not find a view or an event type named " + type;
                if (declared && view.exitCode() == 0 && view.stderr().isBlank()) {
                    compare(problems, who + "view " + type + " " + subject.label, subject, Set.of(type),
                            t -> viewRows(view.stdout()));
                } else if (declared || view.exitCode() == 0 || !view.stderr().contains(unknown)) {
                    problems.add(who + "view " + type + " on " + subject.label + " (the first chunk "
                            + (declared ? "declares" : "does not declare") + " it)\n"
                            + JvmRun.tail(view.toString(), 4000));
                }
            }
        }
        return problems;
    }

    private String jfr(Jdk reader, Subject subject, List<String> problems, String... arguments) {
        JvmRun.Result result = jfrRun(reader, subject, arguments);
        if (result.exitCode() != 0 || !result.stderr().isBlank()) {
            problems.add("jfr of JDK " + reader.feature() + " " + arguments[0] + " failed on " + subject.label + "\n"
                    + JvmRun.tail(result.toString(), 4000));
            return null;
        }
        return result.stdout();
    }

    private JvmRun.Result jfrRun(Jdk reader, Subject subject, String... arguments) {
        List<String> command = new ArrayList<>(List.of(reader.tool("jfr").toString()));
        command.addAll(List.of(arguments));
        String name = "jfr" + reader.feature() + "-" + arguments[0] + "-" + subject.label
                + (arguments[0].equals("view") ? "-" + arguments[3] : "");
        return JvmRun.command(reader, dir, command).name(name).timeout(Duration.ofSeconds(120)).start();
    }

    /** Rows of a {@code jfr view} table: the non-blank lines after its header's dashes. */
    private static long viewRows(String view) {
        List<String> lines = view.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).matches("-+( -+)*\\s*")) {
                return lines.subList(i + 1, lines.size()).stream().filter(l -> !l.isBlank()).count();
            }
        }
        return 0;
    }

    private static void compare(List<String> problems, String what, Subject subject, Set<String> types,
            Function<String, Long> read) {
        for (String type : types) {
            long got = read.apply(type);
            if (got != subject.count(type)) {
                problems.add(what + ": " + got + " " + type + ", the JDK's reader " + subject.count(type));
            }
        }
    }

    /** JMC core: each checked type's items, and jdk.StackTraceRequest as one type. */
    private static List<String> jmc(Subject subject) {
        List<String> problems = new ArrayList<>();
        IItemCollection items;
        try {
            items = JmcFile.load(subject.file);
        } catch (AssertionError e) {
            return List.of("JMC core cannot load " + subject.label + ": " + e.getMessage());
        }
        compare(problems, "JMC core " + subject.label, subject, subject.checkedTypes(), type -> {
            long n = 0;
            for (IItemIterable iterable : items.apply(ItemFilters.type(type))) {
                n += iterable.getItemCount();
            }
            return n;
        });
        Set<Object> requestTypes = new HashSet<>();
        for (IItemIterable iterable : JmcFile.requestItems(items)) {
            requestTypes.add(iterable.getType());
        }
        if (requestTypes.size() > 1) {
            problems.add("JMC core " + subject.label + ": jdk.StackTraceRequest as " + requestTypes.size() + " types");
        }
        return problems;
    }

    /**
     * The rules of readers that cannot run here, chunk by chunk: Pyroscope's required types
     * declared, frames inline, symbols UTF-8 (encoding 3); the JDK's frame-type keys, the same in
     * every chunk of the file; the JDK's leading fields where readers read by position.
     */
    private static List<String> rules(Subject subject) {
        List<String> problems = new ArrayList<>();
        Map<Long, String> frameTypes = new TreeMap<>();
        List<JfrChunks.Chunk> chunks = JfrChunks.read(subject.file);
        if (chunks.isEmpty()) {
            problems.add(subject.label + ": no complete chunk");
        }
        for (JfrChunks.Chunk chunk : chunks) {
            String where = subject.label + " chunk at " + chunk.offset() + ": ";
            for (String type : PYROSCOPE_TYPES) {
                if (chunk.type(type) == null) {
                    problems.add(where + type + " is not declared (Pyroscope's jfr-parser stops)");
                }
            }
            JfrChunks.Type stackTrace = chunk.type("jdk.types.StackTrace");
            if (stackTrace != null && stackTrace.fields().stream()
                    .noneMatch(f -> f.name().equals("frames") && f.array() && !f.constantPool())) {
                problems.add(where + "frames are not inline: " + stackTrace.fields());
            }
            chunk.symbolEncodings().forEach((encoding, n) -> {
                if (encoding != 3) {
                    problems.add(where + n + " symbols in string encoding " + encoding + ", not UTF-8 (3)");
                }
            });
            POSITIONAL.forEach((name, leading) -> {
                JfrChunks.Type type = chunk.type(name);
                List<String> fields = type == null ? null : type.fieldNames();
                if (fields != null && (fields.size() < leading.size()
                        || !fields.subList(0, leading.size()).equals(leading))) {
                    problems.add(where + name + " fields " + fields + " do not start with " + leading);
                }
            });
            chunk.frameTypes().forEach((key, description) -> {
                String known = frameTypes.putIfAbsent(key, description);
                if (known != null && !known.equals(description)) {
                    problems.add(where + "frame type key " + key + " is '" + description + "', elsewhere '" + known
                            + "'");
                }
                boolean jdkType = description.equals(JDK_FRAME_TYPES.get(key));
                if (!jdkType && !(key == UNDETERMINED_KEY && description.equals("Java"))) {
                    problems.add(where + "frame type '" + description + "' has key " + key + ": the JDK's are "
                            + JDK_FRAME_TYPES);
                }
            });
        }
        return problems;
    }

    private static List<String> get(Future<List<String>> check) throws InterruptedException {
        try {
            return check.get();
        } catch (ExecutionException e) {
            // A reader that hung or could not be started: one problem among the others.
            if (e.getCause() instanceof AssertionError failed) {
                return List.of(failed.getMessage().lines().limit(4).reduce((a, b) -> a + "\n" + b).orElse(""));
            }
            throw new IllegalStateException(e.getCause());
        }
    }
}
