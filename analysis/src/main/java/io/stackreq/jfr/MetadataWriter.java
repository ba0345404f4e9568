package io.stackreq.jfr;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The metadata event of a chunk: a string table, then the element tree {@code root} →
 * {@code metadata} → one {@code class} per type (its fields, each with its annotations, then the
 * type's annotations) and {@code region}, every name and value written as an index into the table.
 */
final class MetadataWriter {
    private static final String LABEL = "jdk.jfr.Label";
    private static final String DESCRIPTION = "jdk.jfr.Description";
    private static final String CATEGORY = "jdk.jfr.Category";
    private static final String TIMESTAMP = "jdk.jfr.Timestamp";
    private static final String TIMESPAN = "jdk.jfr.Timespan";

    private record Element(String name, Map<String, String> attributes, List<Element> children) {
        Element(String name) {
            this(name, new LinkedHashMap<>(), new ArrayList<>());
        }

        Element attribute(String key, String value) {
            attributes.put(key, value);
            return this;
        }
    }

    private final List<JfrType> types;
    private final Map<String, Long> ids;
    private final Map<String, Integer> strings = new LinkedHashMap<>();

    MetadataWriter(List<JfrType> types, Map<String, Long> ids) {
        this.types = types;
        this.ids = ids;
    }

    /** The metadata event's body (type 0 onwards), without its size. */
    JfrOutput event(long startTicks, long metadataId) {
        Element metadata = new Element("metadata");
        for (JfrType type : types) {
            metadata.children().add(type(type));
        }
        Element root = new Element("root");
        root.children().add(metadata);
        root.children().add(new Element("region").attribute("locale", "en").attribute("gmtOffset", "0"));
        index(root);
        JfrOutput body = new JfrOutput(1 << 14);
        body.putLong(0).putLong(startTicks).putLong(0).putLong(metadataId).putInt(strings.size());
        for (String text : strings.keySet()) {
            body.putString(text);
        }
        write(body, root);
        return body;
    }

    private Element type(JfrType type) {
        Element element = new Element("class").attribute("name", type.name());
        if (type.superType() != null) {
            element.attribute("superType", type.superType());
        }
        if (type.simpleType()) {
            element.attribute("simpleType", "true");
        }
        element.attribute("id", Long.toString(id(type.name())));
        for (JfrType.Field field : type.fields()) {
            Element fieldElement = new Element("field").attribute("name", field.name())
                    .attribute("class", Long.toString(id(field.typeName())));
            if (field.constantPool()) {
                fieldElement.attribute("constantPool", "true");
            }
            if (field.array()) {
                fieldElement.attribute("dimension", "1");
            }
            annotate(fieldElement, LABEL, field.label());
            annotate(fieldElement, DESCRIPTION, field.description());
            if (field.timeUnit() != null) {
                annotate(fieldElement, field.timestamp() ? TIMESTAMP : TIMESPAN, field.timeUnit());
            }
            element.children().add(fieldElement);
        }
        if (!type.categories().isEmpty()) {
            Element category = new Element("annotation").attribute("class", Long.toString(id(CATEGORY)));
            for (int i = 0; i < type.categories().size(); i++) {
                category.attribute("value-" + i, type.categories().get(i));
            }
            element.children().add(category);
        }
        annotate(element, LABEL, type.label());
        annotate(element, DESCRIPTION, type.description());
        return element;
    }

    private void annotate(Element element, String annotation, String value) {
        if (value != null) {
            element.children().add(new Element("annotation").attribute("class", Long.toString(id(annotation)))
                    .attribute("value", value));
        }
    }

    private long id(String typeName) {
        Long id = ids.get(typeName);
        if (id == null) {
            throw new IllegalStateException("type " + typeName + " is used but not declared");
        }
        return id;
    }

    private void index(Element element) {
        strings.putIfAbsent(element.name(), strings.size());
        element.attributes().forEach((key, value) -> {
            strings.putIfAbsent(key, strings.size());
            strings.putIfAbsent(value, strings.size());
        });
        element.children().forEach(this::index);
    }

    private void write(JfrOutput body, Element element) {
        body.putInt(strings.get(element.name())).putInt(element.attributes().size());
        element.attributes().forEach((key, value) -> body.putInt(strings.get(key)).putInt(strings.get(value)));
        body.putInt(element.children().size());
        for (Element child : element.children()) {
            write(body, child);
        }
    }
}
