package bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.stackreq.tests.support.ChildProcess;

/**
 * The flame page at scale: for the same samples, stackreq's {@code flame.html} beside the HTML of
 * async-profiler's converter (jfr-converter, reading stackreq's collapsed stacks of them): sizes,
 * and the time each takes to load and draw in headless Chromium (from the navigation's start to
 * the end of the load event, and to the first frame drawn after it), alternated page by page.
 *
 * <p>Two profiles, both taken by {@code stackreq profile} with the real agents on the first JDK, of
 * the applications of {@code io.stackreq.apps} ({@link ServiceMix}): javac compiling commons-lang3's
 * sources in process for 20 s at the default 1 ms; and a service of many threads (H2, Lucene,
 * Jackson and javac, 3 threads each; H2's share one database) sampled every 200 µs until its
 * threads have used 130 s of CPU: about as many samples as a 10-minute profile of a service
 * keeping one core busy at 1 ms (564,257 joined on a loaded machine), taken in a few minutes. (At
 * 100 µs on 16 threads, with a load average near 20, 330,172 of 789,886 requests were lost in the
 * JVM with OUT_OF_MEMORY.)
 */
final class FlamePart {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PROFILE_SCRIPT = "<script id=\"profile\" type=\"application/json\">";

    private record Profile(String name, String description, List<String> sampling, String mix) {}

    private record Pages(Profile profile, Path stackreq, Path asyncProfiler, long samples, long stacks, long nodes,
            long names) {}

    private final Bench bench;
    private final Path cli = Path.of(System.getProperty("bench.cli"));
    private final Path converter = Path.of(System.getProperty("bench.jfrConverter"));
    private final Path java = Path.of(System.getProperty("java.home"), "bin", "java");

    FlamePart(Bench bench) { this.bench = bench; }

    void run() throws Exception {
        Jvm jdk = bench.jdks.get(0);
        Path dir = Files.createDirectories(bench.work.resolve("flame"));
        List<Profile> profiles = List.of(
                new Profile("javac-20s", "javac compiling commons-lang3's sources in process, 20 s, 1 thread, task-clock 1 ms",
                        List.of(), "wall=20 javac=1"),
                new Profile("service", "service mix (H2, Lucene, Jackson, javac: 3 threads each) to 130 CPU-s, "
                        + "task-clock 200 µs", List.of("-i", "200us"), "cpu=130 h2=3,lucene=3,jackson=3,javac=3"));
        String loadBefore = loadAverage();
        List<Pages> pages = new ArrayList<>();
        for (Profile profile : profiles) pages.add(pages(jdk, profile, dir));

        int reps = Math.max(3, bench.reps);
        List<List<Chromium.Load>> loads = new ArrayList<>();
        for (int i = 0; i < pages.size() * 2; i++) loads.add(new ArrayList<>());
        try (Chromium chromium = new Chromium(dir.resolve("chromium-profile"))) {
            // The first load of each page warms the disk cache and Chromium; it is not counted.
            for (Pages page : pages) {
                chromium.load(page.stackreq().toUri().toString());
                chromium.load(page.asyncProfiler().toUri().toString());
            }
            for (int rep = 0; rep < reps; rep++) {
                for (int p = 0; p < pages.size(); p++) {
                    Bench.progress("flame page loads in Chromium, " + pages.get(p).profile().name() + " rep " + (rep + 1));
                    // Alternated: stackreq's first in even repetitions, async-profiler's in odd ones.
                    for (int k = 0; k < 2; k++) {
                        int which = (k + rep) % 2;
                        Path file = which == 0 ? pages.get(p).stackreq() : pages.get(p).asyncProfiler();
                        loads.get(2 * p + which).add(chromium.load(file.toUri().toString()));
                    }
                }
            }
        }
        String loadAfter = loadAverage();

        bench.emit("## Flame page at scale, " + jdk.label());
        bench.emit("");
        bench.emit(bench.measuredOn);
        bench.emit("");
        bench.emit("The same samples drawn by stackreq's `flame.html` and by async-profiler's converter "
                + "(jfr-converter 4.2 from Maven Central, given stackreq's collapsed stacks of them: "
                + "`stackreq collapsed`, then `jfrconv stacks.collapsed flame.html`). Times in headless Chromium "
                + "(Debian's), one tab per load, from the navigation's start: *loaded* = end of the load event "
                + "(HTML parsed, scripts run), *drawn* = the first frame after it; median (min–max) of " + reps
                + " loads of each page, alternated. Load average (1, 5, 15 min) before the profiles: " + loadBefore
                + "; after the loads: " + loadAfter + ".");
        bench.emit("");
        bench.emit("| profile | samples | distinct stacks | tree nodes | names | stackreq flame.html | "
                + "async-profiler html | size ratio | stackreq loaded / drawn (ms) | async-profiler loaded / drawn (ms) "
                + "| drawn ratio | JS heap, stackreq / async-profiler (MiB) | page errors |");
        bench.emit("|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---|---|");
        for (int p = 0; p < pages.size(); p++) {
            Pages page = pages.get(p);
            List<Chromium.Load> ours = loads.get(2 * p);
            List<Chromium.Load> theirs = loads.get(2 * p + 1);
            long ourSize = Files.size(page.stackreq());
            long theirSize = Files.size(page.asyncProfiler());
            List<Double> drawnRatios = new ArrayList<>();
            for (int rep = 0; rep < reps; rep++) {
                drawnRatios.add(ours.get(rep).paintedMillis() / theirs.get(rep).paintedMillis());
            }
            long errors = Stream.concat(ours.stream(), theirs.stream()).mapToLong(load -> load.errors().size()).sum();
            bench.emit("| " + page.profile().name() + ": " + page.profile().description() + " | "
                    + String.format("%,d", page.samples()) + " | " + String.format("%,d", page.stacks()) + " | "
                    + String.format("%,d", page.nodes()) + " | " + String.format("%,d", page.names()) + " | "
                    + megabytes(ourSize) + " | " + megabytes(theirSize) + " | "
                    + Stats.f3((double) ourSize / theirSize) + " | " + millis(ours) + " | " + millis(theirs) + " | "
                    + Stats.ratio(drawnRatios) + " | "
                    + Stats.mib(Stats.median(ours.stream().map(l -> (double) l.heapBytes()).toList())) + " / "
                    + Stats.mib(Stats.median(theirs.stream().map(l -> (double) l.heapBytes()).toList())) + " | "
                    + (errors == 0 ? "none" : errors + ": " + firstError(ours, theirs)) + " |");
        }
        bench.emit("");
    }

    /** Profiles with stackreq, then writes async-profiler's page of the same samples. */
    private Pages pages(Jvm jdk, Profile profile, Path parent) throws Exception {
        Path dir = parent.resolve(profile.name());
        Path results = dir.resolve("stackreq-out");
        Files.createDirectories(dir);
        List<String> command = new ArrayList<>(cli("profile", "--java", jdk.home.resolve("bin/java").toString()));
        command.addAll(profile.sampling());
        command.addAll(List.of("-o", results.toString(), "--", "-cp", bench.classpath, "bench.ServiceMix"));
        command.addAll(List.of(profile.mix().split(" ")));
        Bench.progress("flame: profiling " + profile.name() + " (" + profile.description() + ")");
        run(dir, "profile", command);

        Path collapsed = dir.resolve("stacks.collapsed");
        Path recording = results.resolve("recording.jfr");
        Path samples = results.resolve("samples.jsonl");
        List<String> collapse = new ArrayList<>(cli("collapsed", recording.toString(), "--samples",
                samples.toString(), "-o", collapsed.toString()));
        run(dir, "collapsed", collapse);
        List<String> report = new ArrayList<>(cli("report", recording.toString(), "--samples", samples.toString(),
                "--format", "json"));
        run(dir, "report", report);
        long matched = JSON.readTree(dir.resolve("report.stdout.txt").toFile()).path("matched").asLong();

        Path theirs = dir.resolve("async-profiler.html");
        run(dir, "jfrconv", List.of(java.toString(), "-jar", converter.toString(), collapsed.toString(),
                theirs.toString()));
        long stacks;
        try (Stream<String> lines = Files.lines(collapsed)) {
            stacks = lines.count();
        }
        Path ours = results.resolve("flame.html");
        long[] tree = treeSize(ours);
        return new Pages(profile, ours, theirs, matched, stacks, tree[0], tree[1]);
    }

    private List<String> cli(String... arguments) {
        List<String> command = new ArrayList<>(List.of(java.toString(), "-XX:+ExitOnOutOfMemoryError",
                "-Dstackreq.native.dir=" + bench.nativeDir, "-jar", cli.toString()));
        command.addAll(List.of(arguments));
        return command;
    }

    private static void run(Path dir, String name, List<String> command) throws IOException, InterruptedException {
        Files.write(dir.resolve(name + ".command.txt"), List.of(String.join(" ", command)));
        ChildProcess.Outcome outcome = ChildProcess.run(command, dir, dir.resolve(name + ".stdout.txt"),
                dir.resolve(name + ".stderr.txt"), Duration.ofMinutes(15), null, null, null);
        if (outcome.exitCode() != 0) {
            throw new IOException(name + " exited " + outcome.exitCode() + ": see " + dir.resolve(name + ".stderr.txt"));
        }
    }

    /** Nodes and names of the page's tree: the lengths of its tree.name and names.suffix columns. */
    private static long[] treeSize(Path page) throws IOException {
        byte[] html = Files.readAllBytes(page);
        byte[] marker = PROFILE_SCRIPT.getBytes(StandardCharsets.UTF_8);
        int start = indexOf(html, marker);
        if (start < 0) throw new IOException(page + " has no profile script element");
        long nodes = -1, names = -1;
        // The parser reads the JSON value after the marker and stops at its end, before the HTML after it.
        try (JsonParser json = JSON.getFactory().createParser(html, start + marker.length,
                html.length - start - marker.length)) {
            List<String> path = new ArrayList<>();
            String field = null;
            for (JsonToken token = json.nextToken(); token != null; token = json.nextToken()) {
                if (token == JsonToken.FIELD_NAME) {
                    field = json.currentName();
                } else if (token == JsonToken.START_OBJECT) {
                    path.add(field);
                } else if (token == JsonToken.END_OBJECT) {
                    path.remove(path.size() - 1);
                    if (path.isEmpty()) break;
                } else if (token == JsonToken.START_ARRAY) {
                    String where = String.valueOf(path.get(path.size() - 1)) + "." + field;
                    long count = 0;
                    for (JsonToken item = json.nextToken(); item != JsonToken.END_ARRAY; item = json.nextToken()) {
                        if (item.isStructStart()) json.skipChildren();
                        count++;
                    }
                    if (where.equals("tree.name")) nodes = count;
                    if (where.equals("names.suffix")) names = count;
                }
            }
        }
        if (nodes < 0 || names < 0) throw new IOException(page + " has no tree.name or names.suffix column");
        return new long[] {nodes, names};
    }

    private static int indexOf(byte[] text, byte[] part) {
        outer:
        for (int i = 0; i + part.length <= text.length; i++) {
            for (int k = 0; k < part.length; k++) {
                if (text[i + k] != part[k]) continue outer;
            }
            return i;
        }
        return -1;
    }

    private static String millis(List<Chromium.Load> loads) {
        List<Double> loaded = loads.stream().map(Chromium.Load::loadedMillis).toList();
        List<Double> painted = loads.stream().map(Chromium.Load::paintedMillis).toList();
        return Stats.f0(Stats.median(loaded)) + " / " + Stats.f0(Stats.median(painted)) + " ("
                + Stats.f0(Stats.min(painted)) + "–" + Stats.f0(Stats.max(painted)) + ")";
    }

    private static String megabytes(long bytes) {
        return String.format("%,d B (%.2f MB)", bytes, bytes / 1e6);
    }

    private static String firstError(List<Chromium.Load> ours, List<Chromium.Load> theirs) {
        return Stream.concat(ours.stream(), theirs.stream()).flatMap(load -> load.errors().stream()).findFirst()
                .orElse("");
    }

    private static String loadAverage() throws IOException {
        String[] fields = Files.readString(Path.of("/proc/loadavg"), StandardCharsets.US_ASCII).split(" ");
        return fields[0] + ", " + fields[1] + ", " + fields[2];
    }
}
