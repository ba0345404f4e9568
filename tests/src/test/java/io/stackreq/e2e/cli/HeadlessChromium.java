package io.stackreq.e2e.cli;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.stackreq.tests.support.JvmRun;

/**
 * Debian's Chromium, headless, as the flame-page tests drive it: one process per page, the DOM it
 * dumps or the screenshot it takes, and what the page logged to its console.
 */
final class HeadlessChromium {
    private static final Path EXECUTABLE = Path.of("/usr/bin/chromium");
    private static final Pattern FRAME =
            Pattern.compile("<div class=\"(frame[^\"]*)\" style=\"([^\"]*)\">([^<]*)</div>");
    private static final Pattern WIDTH = Pattern.compile("width: ([0-9.]+)px");
    private static final Pattern TOP = Pattern.compile("top: ([0-9.]+)px");

    private HeadlessChromium() {
    }

    /** One drawn frame of the page. */
    record Frame(List<String> classes, double width, double top, String text, String style) {
        private static final Pattern RGB = Pattern.compile("background: rgb\\((\\d+), (\\d+), (\\d+)\\)");

        boolean isMatch() {
            return classes.contains("match");
        }

        /** The hue in degrees of the frame's background, or -1 when it has no rgb background. */
        double hue() {
            Matcher rgb = RGB.matcher(style);
            if (!rgb.find()) {
                return -1;
            }
            double r = Integer.parseInt(rgb.group(1)) / 255.0;
            double g = Integer.parseInt(rgb.group(2)) / 255.0;
            double b = Integer.parseInt(rgb.group(3)) / 255.0;
            double max = Math.max(r, Math.max(g, b));
            double range = max - Math.min(r, Math.min(g, b));
            if (range == 0) {
                return 0;
            }
            double hue = max == r ? ((g - b) / range) % 6 : max == g ? (b - r) / range + 2 : (r - g) / range + 4;
            return (hue * 60 + 360) % 360;
        }

        /** flame-graph.html draws native code in hues 95 to 130 (greens), Java code in 10-50 or 195-220. */
        boolean isNativeColour() {
            double hue = hue();
            return hue >= 94 && hue <= 131;
        }
    }

    /**
     * Runs Chromium on url with action ({@code --dump-dom}, {@code --screenshot=FILE}...), its profile
     * in dir; a run longer than limit fails as a hang.
     */
    static JvmRun.Result run(Path dir, String name, List<String> action, String url, Duration limit) {
        if (!Files.isExecutable(EXECUTABLE)) {
            fail(EXECUTABLE + " is missing: run tests/run, which installs Debian's chromium for this test");
        }
        List<String> command = new ArrayList<>(List.of(EXECUTABLE.toString(), "--headless", "--no-sandbox",
                "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--user-data-dir=" + dir.resolve("profile-" + name),
                "--enable-logging=stderr", "--v=0", "--window-size=1400,900"));
        command.addAll(action);
        command.add(url);
        return JvmRun.command(null, dir, command).name("chromium-" + name).timeout(limit).start();
    }

    /** What the page logged: Chromium writes every console message and uncaught error as a CONSOLE line. */
    static List<String> consoleLines(JvmRun.Result result) {
        return result.stderr().lines().filter(line -> line.contains(":CONSOLE")).toList();
    }

    /** The frames the page drew, from its dumped DOM. */
    static List<Frame> frames(String dom) {
        List<Frame> frames = new ArrayList<>();
        Matcher frame = FRAME.matcher(dom);
        while (frame.find()) {
            Matcher width = WIDTH.matcher(frame.group(2));
            Matcher top = TOP.matcher(frame.group(2));
            if (!width.find() || !top.find()) {
                throw new AssertionError("frame without width or top: " + frame.group());
            }
            frames.add(new Frame(List.of(frame.group(1).split(" ")), Double.parseDouble(width.group(1)),
                    Double.parseDouble(top.group(1)), unescape(frame.group(3)), frame.group(2)));
        }
        if (frames.isEmpty()) {
            throw new AssertionError("no frame drawn:\n" + JvmRun.tail(dom, 4000));
        }
        return frames;
    }

    private static String unescape(String html) {
        return html.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&amp;", "&");
    }
}
