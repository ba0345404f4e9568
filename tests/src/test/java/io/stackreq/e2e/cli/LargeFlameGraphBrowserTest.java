package io.stackreq.e2e.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.stackreq.flame.FlameGraphHtmlWriter;
import io.stackreq.model.Frame;
import io.stackreq.tests.support.JvmRun;
import io.stackreq.tree.CallTree;
import io.stackreq.tree.FrameKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A flame page of a service-sized profile opens in headless Chromium: nothing on the console, the
 * root drawn across the chart, and the hot frame drawn once, as wide as its share, where its depth
 * puts it, and found by the search. A check of function, not of speed (tests/bench/run --only
 * flame measures that): a page Chromium cannot open in 5 minutes fails as a hang.
 *
 * <p>The profile is made up, sized as the benchmark's service profile (about 600,000 samples of 1
 * ms on many threads: 100,000 or more distinct stacks, 400,000 or more tree nodes, 13,000 names):
 * 150,000 stacks, each an earlier one cut a few frames short and grown by 1 to 8 calls along a
 * fixed call graph of 12,000 methods, as real stacks share their callers; 600,000 samples spread
 * over them, and a quarter of the weight in one hot method.
 */
class LargeFlameGraphBrowserTest {
    private static final String HOT = "io.stackreq.synthetic.Hot.spin";
    private static final int STACKS = 150_000;
    private static final int SAMPLES = 600_000;
    private static final int METHODS = 12_000;
    private static final int CALLEES = 4;
    private static final Pattern SEARCH_RESULT = Pattern.compile("<span id=\"search-result\">Matched: ([0-9.]+)%");

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void aServiceSizedPageOpensWithTheHotFrameAsWideAsItsShare() throws IOException {
        Profile profile = serviceProfile();
        Path page = dir.resolve("large-flame.html");
        try (Writer out = Files.newBufferedWriter(page)) {
            new FlameGraphHtmlWriter().write(profile.tree(), new FlameGraphHtmlWriter.Header(
                    "stackreq flame graph: task-clock", "task-clock", "ns", "synthetic service profile"), out);
        }
        long nodes = countNodes(profile.tree().root());
        assertTrue(nodes >= 400_000, () -> "the made-up profile has only " + nodes + " nodes");

        JvmRun.Result result = HeadlessChromium.run(dir, "large", List.of("--dump-dom"),
                page.toUri() + "?search=" + HOT, Duration.ofMinutes(5));
        assertEquals(0, result.exitCode(), () -> "chromium failed\n" + result);
        assertEquals(List.of(), HeadlessChromium.consoleLines(result), () -> "console messages\n" + result.stderr());
        String dom = result.stdout();
        List<HeadlessChromium.Frame> frames = HeadlessChromium.frames(dom);
        HeadlessChromium.Frame root = frames.stream().filter(f -> f.top() == 0).findFirst()
                .orElseThrow(() -> new AssertionError("no root frame drawn"));
        List<HeadlessChromium.Frame> hot = frames.stream().filter(f -> f.text().equals(HOT)).toList();
        double share = (double) profile.hotWeight() / profile.tree().root().total();
        System.out.printf("large flame.html: %,d bytes, %,d nodes; %,d frames drawn, root %.1f px, %s %s px "
                + "(share %.4f)%n", Files.size(page), nodes, frames.size(), root.width(), HOT,
                hot.stream().map(HeadlessChromium.Frame::width).toList(), share);
        assertTrue(root.width() > 1000 && frames.stream().allMatch(f -> f.width() <= root.width() + 0.01),
                () -> "the root is not drawn across the chart: " + root);
        assertEquals(1, hot.size(), () -> HOT + " drawn " + hot.size() + " times");
        assertEquals(share, hot.get(0).width() / root.width(), 0.001, "the hot frame's width is not its share");
        assertEquals(Profile.HOT_DEPTH * 18.0, hot.get(0).top(), "the hot frame is not at its depth");
        assertTrue(hot.get(0).isMatch(), "the search did not highlight the hot frame");
        Matcher shown = SEARCH_RESULT.matcher(dom);
        assertTrue(shown.find(), "no 'Matched: x%' after the search");
        assertEquals(100 * share, Double.parseDouble(shown.group(1)), 0.006, "the page's matched share");
    }

    /** The tree and the weight of the hot method's samples. */
    private record Profile(CallTree tree, long hotWeight) {
        /** all, Thread.run, Server.worker, Hot.loop, Hot.spin. */
        static final int HOT_DEPTH = 4;
    }

    private static Profile serviceProfile() {
        SplittableRandom random = new SplittableRandom(38);
        Frame[] methods = new Frame[METHODS];
        for (int m = 0; m < METHODS; m++) {
            methods[m] = jit("io.stackreq.synthetic.module" + m % 40 + ".Service" + m / 40 % 100, "handle" + m / 4000);
        }
        int[][] callees = new int[METHODS][CALLEES];
        for (int[] calls : callees) {
            for (int c = 0; c < CALLEES; c++) {
                calls[c] = random.nextInt(METHODS);
            }
        }
        Frame threadRun = jit("java.lang.Thread", "run");
        Frame worker = jit("io.stackreq.synthetic.Server", "worker");
        // Stacks as method indices, root first; each grows from an earlier one.
        List<int[]> stacks = new ArrayList<>(STACKS);
        for (int s = 0; s < STACKS; s++) {
            int[] from = s < 64 ? new int[] {random.nextInt(METHODS)} : stacks.get(random.nextInt(s));
            int keep = Math.max(1, from.length - random.nextInt(6));
            int grow = 1 + random.nextInt(8);
            int[] stack = new int[Math.min(200, keep + grow)];
            System.arraycopy(from, 0, stack, 0, Math.min(keep, stack.length));
            for (int d = keep; d < stack.length; d++) {
                stack[d] = callees[stack[d - 1]][random.nextInt(CALLEES)];
            }
            stacks.add(stack);
        }
        // One sample each, the rest more often on early stacks, the trunks the later ones grew from.
        int[] samples = new int[STACKS];
        Arrays.fill(samples, 1);
        for (int extra = STACKS; extra < SAMPLES; extra++) {
            samples[random.nextInt(random.nextInt(STACKS) + 1)]++;
        }
        CallTree tree = new CallTree(FrameKey.METHOD);
        long otherWeight = 0;
        for (int s = 0; s < STACKS; s++) {
            long weight = samples[s] * 1_000_000L + random.nextInt(1000);
            int[] stack = stacks.get(s);
            List<Frame> frames = new ArrayList<>(stack.length + 2);
            for (int d = stack.length - 1; d >= 0; d--) {
                frames.add(methods[stack[d]]);
            }
            frames.add(worker);
            frames.add(threadRun);
            tree.add(null, frames, weight);
            otherWeight += weight;
        }
        long hotWeight = otherWeight / 3;
        tree.add(null, List.of(jit("io.stackreq.synthetic.Hot", "spin"), jit("io.stackreq.synthetic.Hot", "loop"),
                worker, threadRun), hotWeight);
        return new Profile(tree, hotWeight);
    }

    private static Frame jit(String className, String method) {
        return new Frame(className, method, "()V", -1, -1, "JIT compiled");
    }

    private static long countNodes(CallTree.Node root) {
        long count = 0;
        Deque<CallTree.Node> pending = new ArrayDeque<>(List.of(root));
        while (!pending.isEmpty()) {
            CallTree.Node node = pending.pop();
            count++;
            node.children().forEach(pending::push);
        }
        return count;
    }
}
