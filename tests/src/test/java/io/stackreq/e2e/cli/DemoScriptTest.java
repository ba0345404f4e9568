package io.stackreq.e2e.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.stackreq.tests.support.JvmRun;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code ./stackreq demo}, the README's main command, run as is from the repository root of a
 * built tree (on the default JDK: {@code $JAVA_HOME}, else {@code java}), exits 0, prints the
 * report, every file it says it wrote exists, and its last line puts what JFR alone says beside
 * what BiasTrap measured and what stackreq says, each number the one its source printed.
 */
@Tag("alone")
class DemoScriptTest {
    private static final Pattern RESULTS = Pattern.compile("^Results in (.+)/$");
    private static final Pattern FILE_ROW = Pattern.compile("^  (\\S+\\.(?:txt|html|jfr|jsonl))\\s+\\S.*$");
    private static final Pattern MEASURED = Pattern.compile(
            "^BiasTrap: measured copyArrays ([\\d.]+)% \\(.*\\), countedLoop ([\\d.]+)% \\(.*\\)$");
    private static final Pattern CONTRAST = Pattern.compile("^JFR alone \\(its ([\\d,]+) jdk\\.ExecutionSample\\) says "
            + "copyArrays ([\\d.]+)%, countedLoop ([\\d.]+)%; BiasTrap measured copyArrays ([\\d.]+)%, countedLoop "
            + "([\\d.]+)%; stackreq: copyArrays ([\\d.]+)%, countedLoop ([\\d.]+)%\\.$");
    /** A row of the report: self%, self, total%, total, JFR self%, JFR total%, method. */
    private static final Pattern ROW = Pattern.compile(
            "^\\s*[\\d.]+% +[\\d.]+ m?s +([\\d.]+)% +[\\d.]+ m?s +[\\d.]+% +([\\d.]+)%  (\\S+)$");

    @Test
    void demoRunsEndToEndAndWritesTheFilesItNames() throws IOException {
        Path root = JvmRun.root();
        Path script = root.resolve("stackreq");
        assertTrue(Files.isExecutable(script), script + " is not executable");
        Path workDir = JvmRun.targetDir().resolve("e2e-cli").resolve("demo");
        JvmRun.Result result = JvmRun.command(null, workDir,
                List.of("bash", "-c", "cd \"$1\" && exec ./stackreq demo", "demo", root.toString()))
                .name("demo").timeout(Duration.ofSeconds(180)).start();
        assertEquals(0, result.exitCode(), () -> "./stackreq demo failed\n" + result);
        List<String> out = result.stdout().lines().toList();
        assertTrue(out.stream().anyMatch(l -> l.startsWith("stackreq demo:")), () -> "no demo banner\n" + result);
        assertTrue(out.stream().anyMatch(l -> l.trim().startsWith("self%")), () -> "no report table\n" + result);
        assertTrue(out.stream().anyMatch(l -> l.endsWith("io.stackreq.demo.BiasTrap.copyArrays")),
                () -> "the report has no copyArrays row\n" + result);
        assertTrue(out.stream().anyMatch(l -> l.endsWith("io.stackreq.demo.BiasTrap.countedLoop")),
                () -> "the report has no countedLoop row\n" + result);
        assertTrue(out.stream().anyMatch(l -> l.startsWith("Join quality")), () -> "no join quality\n" + result);

        Path results = null;
        List<String> named = new ArrayList<>();
        for (String line : out) {
            Matcher where = RESULTS.matcher(line);
            if (where.matches()) {
                results = root.resolve(where.group(1));
                continue;
            }
            Matcher row = FILE_ROW.matcher(line);
            if (results != null && row.matches()) {
                named.add(row.group(1));
            }
        }
        Path directory = results;
        assertTrue(directory != null, () -> "no 'Results in DIR/' line\n" + result);
        assertEquals(Profiles.OUTPUT_FILES.stream().sorted().toList(), named.stream().sorted().toList(),
                () -> "the files listed under 'Results in'\n" + result);
        for (String name : named) {
            Path file = directory.resolve(name);
            assertTrue(Files.isRegularFile(file) && Files.size(file) > 0, () -> file + " missing or empty\n" + result);
        }
        out.stream().filter(l -> l.startsWith("BiasTrap:") || l.endsWith("BiasTrap.copyArrays")
                || l.endsWith("BiasTrap.countedLoop") || l.contains("matched (") || l.startsWith("JFR alone"))
                .forEach(l -> System.out.println("demo: " + l));

        String last = out.get(out.size() - 1);
        Matcher contrast = CONTRAST.matcher(last);
        assertTrue(contrast.matches(), () -> "the demo's last line: " + last);
        Matcher measured = out.stream().map(MEASURED::matcher).filter(Matcher::matches).findFirst()
                .orElseThrow(() -> new AssertionError("no line of BiasTrap's measurement\n" + result));
        assertEquals(measured.group(1), contrast.group(4), last);
        assertEquals(measured.group(2), contrast.group(5), last);
        Map<String, Matcher> rows = new HashMap<>();
        for (String line : out) {
            Matcher row = ROW.matcher(line);
            if (row.matches()) {
                rows.putIfAbsent(row.group(3), row);
            }
        }
        Matcher copy = rows.get("io.stackreq.demo.BiasTrap.copyArrays");
        Matcher loop = rows.get("io.stackreq.demo.BiasTrap.countedLoop");
        assertTrue(copy != null && loop != null, () -> "report rows with JFR columns\n" + result);
        assertEquals(List.of(copy.group(2), loop.group(2), copy.group(1), loop.group(1)),
                List.of(contrast.group(2), contrast.group(3), contrast.group(6), contrast.group(7)),
                "JFR's and stackreq's total shares are the report's");
    }
}
