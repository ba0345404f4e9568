package io.stackreq.tree;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.stackreq.model.Frame;

/**
 * Weighted call tree: root at the top, one node per distinct path of frame keys. A node's
 * {@code self} is the weight of samples whose stack ends there, its {@code total} the weight of
 * every sample passing through it. Memory grows with distinct stacks, not with samples.
 */
public final class CallTree {
    private final FrameKey key;
    private final Node root = new Node(null, "all", null);

    public CallTree(FrameKey key) {
        this.key = key;
    }

    public FrameKey key() {
        return key;
    }

    public Node root() {
        return root;
    }

    /**
     * Adds one sample.
     *
     * @param label   an extra node under the root (the thread name), or null
     * @param frames  top frame first, as JFR stores them
     */
    public void add(String label, List<Frame> frames, long weight) {
        Node node = root;
        node.total += weight;
        if (label != null) {
            node = node.child(label, null);
            node.total += weight;
        }
        for (int i = frames.size() - 1; i >= 0; i--) {
            Frame frame = frames.get(i);
            node = node.child(key.of(frame), frame);
            node.total += weight;
        }
        node.self += weight;
    }

    /** One node of the tree. */
    public static final class Node {
        private final Node parent;
        private final String name;
        private final Frame frame;
        private final Map<String, Node> children = new LinkedHashMap<>();
        private long self;
        private long total;

        private Node(Node parent, String name, Frame frame) {
            this.parent = parent;
            this.name = name;
            this.frame = frame;
        }

        private Node child(String childName, Frame childFrame) {
            return children.computeIfAbsent(childName, n -> new Node(this, n, childFrame));
        }

        /** The frame key ({@code package.Class.method}, with {@code :line} for {@link FrameKey#LINE}). */
        public String name() {
            return name;
        }

        /** The first frame seen at this node, or null for the root and for label nodes. */
        public Frame frame() {
            return frame;
        }

        public Node parent() {
            return parent;
        }

        public long self() {
            return self;
        }

        public long total() {
            return total;
        }

        public Collection<Node> children() {
            return Collections.unmodifiableCollection(children.values());
        }

        /** Frame nodes from just below the root down to this one (label nodes included). */
        public List<Node> pathFromRoot() {
            List<Node> path = new ArrayList<>();
            for (Node node = this; node.parent != null; node = node.parent) {
                path.add(node);
            }
            Collections.reverse(path);
            return path;
        }
    }
}
