package io.stackreq.jfr;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The types one chunk declares, read from its metadata event: a string table, then a tree of
 * elements ({@code root} holding {@code metadata}, whose {@code class} elements hold {@code field}
 * elements), every name and value an index into the table.
 */
final class ChunkMetadata {
    /**
     * @param typeId       the id of the field's type
     * @param constantPool whether a value is a reference into that type's constant pool
     * @param array        whether a value is an array (a count, then the elements)
     */
    record Field(String name, long typeId, boolean constantPool, boolean array) {
    }

    /**
     * @param superType {@code jdk.jfr.Event} for an event type, null for a type of values
     * @param label     its {@code @Label}, or null
     * @param description its {@code @Description}, or null
     */
    record Type(long id, String name, String superType, boolean simpleType, List<Field> fields, String label,
            String description) {
        boolean isEvent() {
            return "jdk.jfr.Event".equals(superType);
        }

        /** The index of the field named {@code fieldName}, or -1. */
        int fieldIndex(String fieldName) {
            for (int i = 0; i < fields.size(); i++) {
                if (fields.get(i).name().equals(fieldName)) {
                    return i;
                }
            }
            return -1;
        }
    }

    private final long metadataId;
    private final Map<Long, Type> byId;
    private final Map<String, Type> byName;

    private ChunkMetadata(long metadataId, Map<Long, Type> byId) {
        this.metadataId = metadataId;
        this.byId = Collections.unmodifiableMap(byId);
        Map<String, Type> names = new LinkedHashMap<>();
        for (Type type : byId.values()) {
            names.putIfAbsent(type.name(), type);
        }
        this.byName = Collections.unmodifiableMap(names);
    }

    /** The metadata event's id: the JDK's parser reuses the previous chunk's types when it is the same. */
    long metadataId() {
        return metadataId;
    }

    Type type(long id) {
        return byId.get(id);
    }

    /** The type named {@code name}, or null. */
    Type type(String name) {
        return byName.get(name);
    }

    Map<Long, Type> types() {
        return byId;
    }

    /** The id of the type named {@code name}, or -1 when the chunk does not declare it. */
    long idOf(String name) {
        Type type = byName.get(name);
        return type == null ? -1 : type.id();
    }

    /** Reads the metadata event at the input's position. */
    static ChunkMetadata read(JfrInput in) {
        int start = in.position();
        int size = in.readInt();
        long eventType = in.readLong();
        if (eventType != 0) {
            throw new CorruptChunkException("the metadata offset leads to an event of type " + eventType);
        }
        in.readLong(); // start time
        in.readLong(); // duration
        long metadataId = in.readLong();
        String[] strings = new String[in.readCount()];
        for (int i = 0; i < strings.length; i++) {
            strings[i] = in.readString();
        }
        Element root = Element.read(in, strings, 0);
        if (in.position() > start + size) {
            throw new CorruptChunkException("the metadata runs past its declared size");
        }
        Map<Long, Type> types = new LinkedHashMap<>();
        Map<String, String> typeNames = new LinkedHashMap<>();
        for (Element metadata : root.children("metadata")) {
            for (Element type : metadata.children("class")) {
                typeNames.put(type.attribute("id"), type.attribute("name"));
            }
        }
        for (Element metadata : root.children("metadata")) {
            for (Element type : metadata.children("class")) {
                List<Field> fields = new ArrayList<>();
                for (Element field : type.children("field")) {
                    fields.add(new Field(field.attribute("name"), field.longAttribute("class"),
                            "true".equals(field.attributes.get("constantPool")),
                            "1".equals(field.attributes.get("dimension"))));
                }
                long id = type.longAttribute("id");
                types.put(id, new Type(id, type.attribute("name"), type.attributes.get("superType"),
                        "true".equals(type.attributes.get("simpleType")), List.copyOf(fields),
                        annotation(type, typeNames, "jdk.jfr.Label"), annotation(type, typeNames, "jdk.jfr.Description")));
            }
        }
        return new ChunkMetadata(metadataId, types);
    }

    /** The value of the element's annotation of type {@code annotationType}, or null. */
    private static String annotation(Element element, Map<String, String> typeNames, String annotationType) {
        for (Element annotation : element.children("annotation")) {
            if (annotationType.equals(typeNames.get(annotation.attributes.get("class")))) {
                return annotation.attributes.get("value");
            }
        }
        return null;
    }

    /** One element of the metadata tree. */
    private record Element(String name, Map<String, String> attributes, List<Element> elements) {
        private static final int MAX_DEPTH = 32;

        static Element read(JfrInput in, String[] strings, int depth) {
            if (depth > MAX_DEPTH) {
                throw new CorruptChunkException("metadata elements nested deeper than " + MAX_DEPTH);
            }
            String name = string(strings, in.readInt());
            int attributeCount = in.readCount();
            Map<String, String> attributes = new LinkedHashMap<>();
            for (int i = 0; i < attributeCount; i++) {
                attributes.put(string(strings, in.readInt()), string(strings, in.readInt()));
            }
            int childCount = in.readCount();
            List<Element> children = new ArrayList<>(childCount);
            for (int i = 0; i < childCount; i++) {
                children.add(read(in, strings, depth + 1));
            }
            return new Element(name, attributes, children);
        }

        List<Element> children(String childName) {
            return elements.stream().filter(child -> childName.equals(child.name)).toList();
        }

        String attribute(String key) {
            String value = attributes.get(key);
            if (value == null) {
                throw new CorruptChunkException("a metadata " + name + " element without its " + key);
            }
            return value;
        }

        long longAttribute(String key) {
            try {
                return Long.parseLong(attribute(key));
            } catch (NumberFormatException e) {
                throw new CorruptChunkException("a metadata " + name + " element whose " + key + " is no number");
            }
        }

        private static String string(String[] strings, int index) {
            if (index < 0 || index >= strings.length || strings[index] == null) {
                throw new CorruptChunkException("a metadata string index " + index + " outside its table of "
                        + strings.length);
            }
            return strings[index];
        }
    }
}
