package io.stackreq.flame;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import io.stackreq.tree.CallTree;
import io.stackreq.tree.CallTree.Node;

/**
 * A self-contained interactive flame graph: one HTML file with the profile as inline JSON and a
 * small renderer (flame-graph.html in the resources) inline too, so it opens with no network.
 */
public final class FlameGraphHtmlWriter {
    private static final String TEMPLATE = "flame-graph.html";
    private static final String DATA_PLACEHOLDER = "\"__STACKREQ_PROFILE__\"";

    /** Text shown above the graph. */
    public record Header(String title, String metric, String unit, String details) {
    }

    public void write(CallTree tree, Header header, Writer out) throws IOException {
        String template = template();
        int at = template.indexOf(DATA_PLACEHOLDER);
        if (at < 0) {
            throw new IllegalStateException(TEMPLATE + " has no data placeholder");
        }
        out.write(template, 0, at);
        out.write(scriptSafe(json(tree, header)));
        out.write(template, at + DATA_PLACEHOLDER.length(), template.length() - at - DATA_PLACEHOLDER.length());
    }

    private static String json(CallTree tree, Header header) throws IOException {
        StringWriter text = new StringWriter();
        try (JsonGenerator json = new JsonFactory().createGenerator(text)) {
            json.writeStartObject();
            json.writeStringField("title", header.title());
            json.writeStringField("metric", header.metric());
            json.writeStringField("unit", header.unit());
            json.writeStringField("details", header.details());
            json.writeFieldName("root");
            node(json, tree.root());
            json.writeEndObject();
        }
        return text.toString();
    }

    /**
     * {@code {"n": name, "v": total, "s": self, "l": 1 for a label such as a thread, "k": "native" for
     * native code (C/C++, JVM stubs), "c": [children]}}
     */
    private static void node(JsonGenerator json, Node node) throws IOException {
        json.writeStartObject();
        json.writeStringField("n", node.name());
        json.writeNumberField("v", node.total());
        json.writeNumberField("s", node.self());
        if (node.frame() == null && node.parent() != null) {
            json.writeNumberField("l", 1);
        }
        if (node.frame() != null && node.frame().isNativeCode()) {
            json.writeStringField("k", "native");
        }
        if (!node.children().isEmpty()) {
            // Alphabetical, as flame graphs order siblings: the x axis is not time.
            List<Node> children = new ArrayList<>(node.children());
            children.sort(Comparator.comparing(Node::name));
            json.writeArrayFieldStart("c");
            for (Node child : children) {
                node(json, child);
            }
            json.writeEndArray();
        }
        json.writeEndObject();
    }

    /** JSON inside a script element must not contain "</script" or "<!--": escape the characters. */
    private static String scriptSafe(String json) {
        return json.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026");
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
