package io.stackreq.flame;

import java.io.IOException;
import java.io.Writer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

import io.stackreq.tree.CallTree;
import io.stackreq.tree.CallTree.Node;

/**
 * Brendan Gregg's collapsed-stack format, as flamegraph.pl and speedscope read it: one line per
 * distinct stack, root first, frames separated by {@code ;}, then a space and the weight.
 */
public final class CollapsedWriter {

    public void write(CallTree tree, Writer out) throws IOException {
        Deque<Node> pending = new ArrayDeque<>();
        List<Node> roots = new ArrayList<>(tree.root().children());
        for (int i = roots.size() - 1; i >= 0; i--) {
            pending.push(roots.get(i));
        }
        StringBuilder line = new StringBuilder();
        while (!pending.isEmpty()) {
            Node node = pending.pop();
            if (node.self() > 0) {
                line.setLength(0);
                for (Node frame : node.pathFromRoot()) {
                    if (line.length() > 0) {
                        line.append(';');
                    }
                    line.append(clean(frame.name()));
                }
                out.write(line.append(' ').append(node.self()).append('\n').toString());
            }
            List<Node> children = new ArrayList<>(node.children());
            for (int i = children.size() - 1; i >= 0; i--) {
                pending.push(children.get(i));
            }
        }
    }

    /** The format has no escapes: a ';' or line break inside a name would split the frame. */
    private static String clean(String name) {
        return name.replace(';', ':').replace('\n', ' ').replace('\r', ' ');
    }
}
