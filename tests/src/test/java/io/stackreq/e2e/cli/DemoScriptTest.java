package io.stackreq.e2e.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.stackreq.tests.support.JvmRun;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 3, acceptance 7: {@code ./stackreq demo}, the README's main command, run as is from the
 * repository root of a built tree (on the default JDK: {@code $JAVA_HOME}, else {@code java}),
 * exits 0, prints the report, and every file it says it wrote exists.
 */
@Tag("alone")
class DemoScriptTest {
    private static final Pattern RESULTS = Pattern.compile("^Results in (.+)/$");
    private static final Pattern FILE_ROW = Pattern.compile("^  (\\S+\\.(?:txt|html|jfr|jsonl))\\s+\\S.*$");

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
                || l.endsWith("BiasTrap.countedLoop") || l.contains("matched ("))
                .forEach(l -> System.out.println("demo: " + l));
    }
}
