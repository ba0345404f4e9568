package io.stackreq.e2e.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;


import io.stackreq.e2e.cli.HeadlessChromium.Frame;
import io.stackreq.tests.NativeFramesTest;
import io.stackreq.tests.support.Jdk;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tests.support.OnEachJdk;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 3, acceptance 4: the {@code flame.html} of a TwoPhase profile, opened from disk in headless
 * Chromium, logs nothing to the console, draws methodA as wide as its share, and its search
 * ({@code ?search=} in the URL fills the search box and runs the same code as typing) highlights
 * methodA and nothing else, and says methodA's share. A screenshot of the searched page is left in
 * {@code tests/target/e2e-cli/jdk<N>/flame-search-methodA.png}.
 */
@Tag("alone")
class FlameGraphBrowserTest {
    private static final Pattern SEARCH_RESULT = Pattern.compile("<span id=\"search-result\">Matched: ([0-9.]+)%");
    /**
     * The search typed into the page: a case-insensitive regular expression. Plain "methodA" would
     * also match the JDK's reflection frames ("...MethodAccessor..."), so the class is named too.
     */
    private static final String SEARCH = "TwoPhase.methodA";
    private static final Pattern SEARCHED = Pattern.compile(SEARCH, Pattern.CASE_INSENSITIVE);

    @TempDir
    Path dir;

    @Test
    void consoleCaptureSeesPageErrors() throws IOException {
        // Without this the "no console errors" checks below could pass by not seeing any.
        Path page = dir.resolve("broken.html");
        Files.writeString(page, "<!DOCTYPE html><html><body><script>console.error('probe-error');"
                + "undefinedFunction();</script></body></html>");
        JvmRun.Result result = chromium("probe", List.of("--dump-dom"), page.toUri().toString());
        List<String> console = HeadlessChromium.consoleLines(result);
        assertEquals(2, console.size(), () -> "console lines " + console + "\n" + result);
        assertTrue(console.get(0).contains("probe-error"), () -> console.toString());
        assertTrue(console.get(1).contains("Uncaught ReferenceError"), () -> console.toString());
    }

    @OnEachJdk
    void flameGraphShowsTheHotMethodAsWideAsItsShareWithoutConsoleErrors(Jdk jdk) {
        Profiles.Profiled run = Profiles.twoPhase(jdk);
        double totalPct = Profiles.entry(run.report(), Profiles.METHOD_A).path("totalPct").asDouble();
        JvmRun.Result result = chromium("dom", List.of("--dump-dom"), run.file("flame.html").toUri().toString());
        assertEquals(0, result.exitCode(), () -> "chromium failed\n" + result);
        assertEquals(List.of(), HeadlessChromium.consoleLines(result), () -> "console messages\n" + result.stderr());
        String dom = result.stdout();
        assertTrue(dom.contains("<h1 id=\"title\">stackreq flame graph: task-clock</h1>"), () -> "no title\n" + dom);
        List<Frame> frames = HeadlessChromium.frames(dom);
        Frame root = frames.stream().filter(f -> f.top() == 0).findFirst()
                .orElseThrow(() -> new AssertionError("no root frame drawn\n" + dom));
        double widthA = frames.stream().filter(f -> f.text().equals(Profiles.METHOD_A)).mapToDouble(Frame::width).sum();
        System.out.printf("%s flame.html: %d frames drawn, methodA %.1f of %.1f px (report total %.3f%%)%n", jdk,
                frames.size(), widthA, root.width(), totalPct);
        assertTrue(widthA > 0, () -> "methodA is not drawn; frames: " + frames);
        assertEquals(totalPct / 100, widthA / root.width(), 0.01,
                () -> "methodA's width is not its share of the total; frames: " + frames);
        assertFalse(frames.stream().anyMatch(Frame::isMatch), () -> "frames highlighted without a search");
    }

    @OnEachJdk
    void searchHighlightsTheHotMethodAndNothingElse(Jdk jdk) throws IOException {
        Profiles.Profiled run = Profiles.twoPhase(jdk);
        double totalPct = Profiles.entry(run.report(), Profiles.METHOD_A).path("totalPct").asDouble();
        String url = run.file("flame.html").toUri() + "?search=" + SEARCH;
        JvmRun.Result result = chromium("search", List.of("--dump-dom"), url);
        assertEquals(0, result.exitCode(), () -> "chromium failed\n" + result);
        assertEquals(List.of(), HeadlessChromium.consoleLines(result), () -> "console messages\n" + result.stderr());
        String dom = result.stdout();
        List<Frame> frames = HeadlessChromium.frames(dom);
        List<Frame> matches = frames.stream().filter(Frame::isMatch).toList();
        assertTrue(matches.stream().anyMatch(f -> f.text().equals(Profiles.METHOD_A)),
                () -> "methodA is not highlighted; highlighted: " + matches);
        for (Frame frame : frames) {
            if (!frame.text().isEmpty()) {
                boolean named = SEARCHED.matcher(frame.text()).find();
                assertEquals(named, frame.isMatch(), () -> "highlighting wrong for " + frame);
            }
        }
        Matcher shown = SEARCH_RESULT.matcher(dom);
        assertTrue(shown.find(), () -> "no 'Matched: x%' after the search\n" + dom);
        double matchedPct = Double.parseDouble(shown.group(1));
        System.out.printf("%s flame.html search " + SEARCH
                + ": %d frames highlighted, page says %.2f%%, report %.3f%%%n",
                jdk, matches.size(), matchedPct, totalPct);
        assertEquals(totalPct, matchedPct, 0.02, "the page's matched share is not methodA's total in the report");

        Path png = JvmRun.targetDir().resolve("e2e-cli").resolve("jdk" + jdk.feature())
                .resolve("flame-search-methodA.png");
        Files.createDirectories(png.getParent());
        Files.deleteIfExists(png);
        JvmRun.Result shot = chromium("screenshot", List.of("--screenshot=" + png, "--hide-scrollbars"), url);
        assertEquals(0, shot.exitCode(), () -> "chromium --screenshot failed\n" + shot);
        assertEquals(List.of(), HeadlessChromium.consoleLines(shot), () -> "console messages\n" + shot.stderr());
        byte[] bytes = Files.readAllBytes(png);
        assertTrue(bytes.length > 2000 && bytes[1] == 'P' && bytes[2] == 'N' && bytes[3] == 'G',
                () -> png + " is not a PNG screenshot (" + bytes.length + " bytes)");
    }

    /**
     * Issue 13, acceptance 7: a flame graph of a native=on recording (a C call chain built without
     * frame pointers, called from Java) draws the C frames in the native colour (green hues) and
     * the Java frames in another.
     */
    @OnEachJdk
    void nativeFramesAreDrawnInTheirOwnColour(Jdk jdk) throws Exception {
        Path recording = NativeFramesTest.recordChain(jdk, dir.resolve("native"), "nofp", "on").recording();
        Path page = dir.resolve("native-flame.html");
        JvmRun.Result cli = JvmRun.cli(jdk, dir, List.of("flame", recording.toString(), "-o", page.toString()))
                .name("flame-native").timeout(Duration.ofSeconds(120)).start();
        assertEquals(0, cli.exitCode(), () -> "stackreq flame failed\n" + cli);
        JvmRun.Result result = chromium("native", List.of("--dump-dom"), page.toUri().toString());
        assertEquals(0, result.exitCode(), () -> "chromium failed\n" + result);
        assertEquals(List.of(), HeadlessChromium.consoleLines(result), () -> "console messages\n" + result.stderr());
        List<Frame> frames = HeadlessChromium.frames(result.stdout());
        List<Frame> chain = frames.stream().filter(f -> f.text().startsWith("native_chain_level")).toList();
        List<Frame> java = frames.stream().filter(f -> f.text().startsWith("io.stackreq.testapp.")).toList();
        System.out.printf("%s native flame.html: %d frames drawn, %d of the C chain, hues %s; Java %s%n", jdk,
                frames.size(), chain.size(), chain.stream().map(Frame::hue).toList(),
                java.stream().map(Frame::hue).toList());
        assertTrue(chain.size() >= 4, () -> "the C chain's frames are not drawn: " + frames);
        assertTrue(chain.stream().allMatch(Frame::isNativeColour), () -> "C frames not in the native colour: " + chain);
        assertTrue(!java.isEmpty() && java.stream().noneMatch(Frame::isNativeColour),
                () -> "Java frames in the native colour: " + java);
    }

    private JvmRun.Result chromium(String name, List<String> action, String url) {
        return HeadlessChromium.run(dir, name, action, url, Duration.ofSeconds(90));
    }
}
