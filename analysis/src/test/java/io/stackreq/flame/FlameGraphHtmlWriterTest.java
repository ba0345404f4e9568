package io.stackreq.flame;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.stackreq.fixtures.FlamePage;
import io.stackreq.model.Frame;
import io.stackreq.tree.CallTree;
import io.stackreq.tree.FrameKey;

/** The page's columns read back as the tree that was written, for names and shapes that strain them. */
class FlameGraphHtmlWriterTest {
    @TempDir
    Path directory;

    private FlamePage write(CallTree tree) throws IOException {
        Path page = directory.resolve("flame.html");
        try (Writer out = Files.newBufferedWriter(page)) {
            new FlameGraphHtmlWriter().write(tree, new FlameGraphHtmlWriter.Header("title", "task-clock", "ns",
                    "details"), out);
        }
        return FlamePage.read(page);
    }

    private static Frame java(String className, String method) {
        return new Frame(className, method, "()V", 1, 0, "JIT compiled");
    }

    @Test
    void namesThatShareAPrefixOrCarryMarkupComeBackWhole() throws IOException {
        CallTree tree = new CallTree(FrameKey.METHOD);
        // "</script>" would end the page's data early (the page is read up to the first one); the
        // front coding must not cut a pair of surrogates where two names share the high one.
        Frame script = java("app.A</script><!--", "run");
        Frame init = java("app.A", "<init>");
        Frame emoji = java("app.A", "\uD83D\uDE00b");
        Frame emojiToo = java("app.A", "\uD83D\uDE01b");
        tree.add(null, List.of(init, script), 1);
        tree.add(null, List.of(emoji, script), 2);
        tree.add(null, List.of(emojiToo, script), 3);
        FlamePage page = write(tree);
        FlamePage.Node caller = page.root().child("app.A</script><!--.run");
        assertEquals(List.of(1L, 2L, 3L), List.of(caller.child("app.A.<init>").self(),
                caller.child("app.A.\uD83D\uDE00b").self(), caller.child("app.A.\uD83D\uDE01b").self()));
        assertEquals(6, page.root().total());
    }

    @Test
    void aThreadLabelAndAFrameOfTheSameTextAreTwoNames() throws IOException {
        CallTree tree = new CallTree(FrameKey.METHOD);
        Frame named = java("pool", "worker");
        tree.add("pool.worker", List.of(named), 5);
        FlamePage.Node label = write(tree).root().child("pool.worker");
        assertEquals(List.of("label", 5L, 0L), List.of(label.kind(), label.total(), label.self()));
        FlamePage.Node frame = label.child("pool.worker");
        assertEquals(List.of("java", 5L, 5L), List.of(frame.kind(), frame.total(), frame.self()));
    }

    @Test
    void aStackThousandsOfFramesDeepAndSelfWeightOnTheRoot() throws IOException {
        CallTree tree = new CallTree(FrameKey.METHOD);
        List<Frame> deep = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            deep.add(java("app.Recursion", "descend"));
        }
        deep.add(java("app.Recursion", "main"));
        tree.add(null, deep, 7);
        tree.add(null, List.of(), 2);
        FlamePage page = write(tree);
        assertEquals(List.of(9L, 2L), List.of(page.root().total(), page.root().self()));
        FlamePage.Node node = page.root().child("app.Recursion.main");
        int depth = 0;
        while (!node.children().isEmpty()) {
            node = node.children().get(0);
            depth++;
        }
        assertEquals(List.of(20_000, 7L, 7L), List.of(depth, node.total(), node.self()));
    }
}
