package io.stackreq.jfr;

import java.util.ArrayList;
import java.util.List;

/**
 * A type as a chunk's metadata declares it, and so as {@link JdkChunkWriter} writes its values:
 * fields in this order, each with its type's name, whether it is a reference into a constant
 * pool or an array, and the annotations readers show or interpret.
 *
 * @param superType  {@code jdk.jfr.Event} for events, {@code java.lang.annotation.Annotation} for
 *                   annotations, null for a type of values
 * @param simpleType one field that stands for the value (readers take such pools for enumerations)
 * @param categories the event's category path, as JMC's event tree shows it
 */
public record JfrType(String name, String superType, boolean simpleType, String label, String description,
        List<String> categories, List<Field> fields) {

    static final String EVENT = "jdk.jfr.Event";
    static final String ANNOTATION = "java.lang.annotation.Annotation";

    /**
     * @param timeUnit with {@code timestamp}: the {@code @Timestamp} value ("TICKS"); else a
     *                 {@code @Timespan} value ("TICKS", "NANOSECONDS") or null for none
     */
    public record Field(String name, String typeName, boolean constantPool, boolean array, String label,
            String description, boolean timestamp, String timeUnit) {
    }

    public JfrType {
        categories = List.copyOf(categories);
        fields = List.copyOf(fields);
    }

    boolean isEvent() {
        return EVENT.equals(superType);
    }

    /** The field named {@code fieldName}, or null. */
    Field field(String fieldName) {
        return fields.stream().filter(field -> field.name().equals(fieldName)).findFirst().orElse(null);
    }

    /** Starts an event type: {@code startTime} (ticks) is its first field, as every reader expects. */
    public static Builder event(String name, String label, String description, String... categories) {
        return new Builder(name, EVENT, false, label, description, List.of(categories))
                .field(new Field("startTime", "long", false, false, "Start Time", null, true, "TICKS"));
    }

    static Builder values(String name, String label) {
        return new Builder(name, null, false, label, null, List.of());
    }

    /** A type whose one field stands for the value: symbols, frame types, thread states. */
    static JfrType simple(String name, String label, String fieldName, String fieldLabel) {
        return new Builder(name, null, true, label, null, List.of()).field(fieldName, "java.lang.String", fieldLabel)
                .build();
    }

    static JfrType plain(String name) {
        return new JfrType(name, null, false, null, null, List.of(), List.of());
    }

    static JfrType annotation(String name, boolean arrayValue) {
        return new JfrType(name, ANNOTATION, false, null, null, List.of(),
                List.of(new Field("value", "java.lang.String", false, arrayValue, null, null, false, null)));
    }

    /** Collects the fields of a type in order. */
    public static final class Builder {
        private final String name;
        private final String superType;
        private final boolean simpleType;
        private final String label;
        private final String description;
        private final List<String> categories;
        private final List<Field> fields = new ArrayList<>();

        private Builder(String name, String superType, boolean simpleType, String label, String description,
                List<String> categories) {
            this.name = name;
            this.superType = superType;
            this.simpleType = simpleType;
            this.label = label;
            this.description = description;
            this.categories = categories;
        }

        public Builder field(Field field) {
            fields.add(field);
            return this;
        }

        /** A field of a primitive type or an inline string. */
        public Builder field(String fieldName, String typeName, String fieldLabel) {
            return field(new Field(fieldName, typeName, false, false, fieldLabel, null, false, null));
        }

        /** A reference into the constant pool of {@code typeName}. */
        public Builder pooled(String fieldName, String typeName, String fieldLabel) {
            return field(new Field(fieldName, typeName, true, false, fieldLabel, null, false, null));
        }

        /** A long in {@code unit} ("TICKS", "NANOSECONDS"), shown as a duration. */
        public Builder timespan(String fieldName, String unit, String fieldLabel) {
            return field(new Field(fieldName, "long", false, false, fieldLabel, null, false, unit));
        }

        public JfrType build() {
            return new JfrType(name, superType, simpleType, label, description, categories, fields);
        }
    }
}
