package io.stackreq.flame;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;

import io.stackreq.tree.CallTree;
import io.stackreq.tree.CallTree.Node;

/**
 * A self-contained interactive flame graph: one HTML file with the profile as inline JSON and a
 * small renderer (flame-graph.html in the resources) inline too, so it opens with no network.
 *
 * <p>The JSON holds the tree in columns, so that its size grows with the number of nodes by a few
 * bytes each and every name is written once; the page derives totals, depths and parents:
 * <pre>{
 *   "title": "...", "details": "...", "jfr": "..." (only when JFR's own samples are there to contrast),
 *   "names": {"shared": [0, 12, ...], "suffix": ["all", "Thread.run", ...]},
 *   "kinds": {"label": [name indices], "native": [name indices]},
 *   "tree": {"name": [name index per node], "children": [child count per node]},
 *   "weights": [{"metric": "task-clock", "unit": "ns", "self": [gap, weight, gap, weight, ...]}]
 * }</pre>
 * <ul>
 * <li>{@code names} are sorted and front-coded: name i is the first {@code shared[i]} characters of
 *     name i-1 followed by {@code suffix[i]}.</li>
 * <li>{@code kinds} lists the names that are not Java frames: labels (the root and thread names)
 *     and native code (C/C++, JVM stubs). The same text can be two names of different kinds.</li>
 * <li>{@code tree} lists the nodes in preorder, the root first, siblings in alphabetical order.</li>
 * <li>Each weight's {@code self} lists the nodes with a self weight other than 0 as pairs: the
 *     distance in preorder from the previous such node (from node 0 for the first), and the
 *     weight. A node's total is its self plus its children's totals. The first weight sets the
 *     widths; a second one (another metric of the same samples) needs only another entry.</li>
 * </ul>
 */
public final class FlameGraphHtmlWriter {
    private static final String TEMPLATE = "flame-graph.html";
    private static final String DATA_PLACEHOLDER = "\"__STACKREQ_PROFILE__\"";
    /** Alphabetical, as flame graphs order siblings: the x axis is not time. */
    private static final JsonFactory JSON = new JsonFactory();
    private static final Comparator<Node> SIBLINGS = Comparator.comparing(Node::name);

    /**
     * Text shown above the graph.
     *
     * @param jfr what JFR's own sampler said of the same run, shown beside the details; null for none
     */
    public record Header(String title, String metric, String unit, String details, String jfr) {
        public Header(String title, String metric, String unit, String details) {
            this(title, metric, unit, details, null);
        }
    }

    /** What a name stands for; the page colours each kind its own way. */
    private enum Kind {
        JAVA, LABEL, NATIVE;

        static Kind of(Node node) {
            if (node.frame() == null) {
                return LABEL;
            }
            return node.frame().isNativeCode() ? NATIVE : JAVA;
        }
    }

    private record Name(String text, Kind kind) implements Comparable<Name> {
        @Override
        public int compareTo(Name other) {
            int byText = text.compareTo(other.text);
            return byText != 0 ? byText : kind.compareTo(other.kind);
        }
    }

    public void write(CallTree tree, Header header, Writer out) throws IOException {
        String template = template();
        int at = template.indexOf(DATA_PLACEHOLDER);
        if (at < 0) {
            throw new IllegalStateException(TEMPLATE + " has no data placeholder");
        }
        out.write(template, 0, at);
        try (JsonGenerator json = JSON.createGenerator(out)) {
            json.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            json.setCharacterEscapes(new ScriptSafe());
            profile(json, tree, header);
        }
        out.write(template, at + DATA_PLACEHOLDER.length(), template.length() - at - DATA_PLACEHOLDER.length());
    }

    private static void profile(JsonGenerator json, CallTree tree, Header header) throws IOException {
        List<Node> nodes = preorder(tree.root());
        TreeSet<Name> sorted = new TreeSet<>();
        for (Node node : nodes) {
            sorted.add(new Name(node.name(), Kind.of(node)));
        }
        Map<Name, Integer> index = new HashMap<>();
        for (Name name : sorted) {
            index.put(name, index.size());
        }

        json.writeStartObject();
        json.writeStringField("title", header.title());
        json.writeStringField("details", header.details());
        if (header.jfr() != null) {
            json.writeStringField("jfr", header.jfr());
        }
        names(json, sorted);

        json.writeObjectFieldStart("kinds");
        for (Kind kind : new Kind[] {Kind.LABEL, Kind.NATIVE}) {
            json.writeArrayFieldStart(kind.name().toLowerCase(Locale.ROOT));
            for (Name name : sorted) {
                if (name.kind() == kind) {
                    json.writeNumber(index.get(name));
                }
            }
            json.writeEndArray();
        }
        json.writeEndObject();

        json.writeObjectFieldStart("tree");
        json.writeArrayFieldStart("name");
        for (Node node : nodes) {
            json.writeNumber(index.get(new Name(node.name(), Kind.of(node))));
        }
        json.writeEndArray();
        json.writeArrayFieldStart("children");
        for (Node node : nodes) {
            json.writeNumber(node.children().size());
        }
        json.writeEndArray();
        json.writeEndObject();

        json.writeArrayFieldStart("weights");
        json.writeStartObject();
        json.writeStringField("metric", header.metric());
        json.writeStringField("unit", header.unit());
        json.writeArrayFieldStart("self");
        int previous = 0;
        for (int i = 0; i < nodes.size(); i++) {
            long self = nodes.get(i).self();
            if (self != 0) {
                json.writeNumber(i - previous);
                json.writeNumber(self);
                previous = i;
            }
        }
        json.writeEndArray();
        json.writeEndObject();
        json.writeEndArray();
        json.writeEndObject();
    }

    /** Front-coded: each name as the length it shares with the one before and the rest. */
    private static void names(JsonGenerator json, TreeSet<Name> sorted) throws IOException {
        json.writeObjectFieldStart("names");
        json.writeArrayFieldStart("shared");
        String before = "";
        for (Name name : sorted) {
            json.writeNumber(sharedLength(before, name.text()));
            before = name.text();
        }
        json.writeEndArray();
        json.writeArrayFieldStart("suffix");
        before = "";
        for (Name name : sorted) {
            json.writeString(name.text().substring(sharedLength(before, name.text())));
            before = name.text();
        }
        json.writeEndArray();
        json.writeEndObject();
    }

    /** The common prefix, never splitting a surrogate pair (the page slices UTF-16 code units). */
    private static int sharedLength(String a, String b) {
        int limit = Math.min(a.length(), b.length());
        int shared = 0;
        while (shared < limit && a.charAt(shared) == b.charAt(shared)) {
            shared++;
        }
        if (shared > 0 && Character.isHighSurrogate(a.charAt(shared - 1))) {
            shared--;
        }
        return shared;
    }

    /** Without recursion: stacks can be thousands of frames deep. */
    private static List<Node> preorder(Node root) {
        List<Node> nodes = new ArrayList<>();
        Deque<Node> pending = new ArrayDeque<>();
        pending.push(root);
        while (!pending.isEmpty()) {
            Node node = pending.pop();
            nodes.add(node);
            List<Node> children = new ArrayList<>(node.children());
            children.sort(SIBLINGS.reversed());
            children.forEach(pending::push);
        }
        return nodes;
    }

    /**
     * JSON inside a script element must not contain "&lt;/script" or "&lt;!--": every '&lt;' is
     * written as \u003c, which the page's JSON.parse reads back.
     */
    private static final class ScriptSafe extends CharacterEscapes {
        private final int[] escapes = CharacterEscapes.standardAsciiEscapesForJSON();

        ScriptSafe() {
            escapes['<'] = CharacterEscapes.ESCAPE_STANDARD;
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return escapes;
        }

        @Override
        public SerializableString getEscapeSequence(int ch) {
            return null;
        }
    }

    private static String template() {
        try (InputStream in = FlameGraphHtmlWriter.class.getResourceAsStream(TEMPLATE)) {
            if (in == null) {
                throw new IllegalStateException(TEMPLATE + " missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
