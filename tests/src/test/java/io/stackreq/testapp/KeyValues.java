package io.stackreq.testapp;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** {@code key=value} pairs, kept in the order given and read by key: what {@link Args} and {@link Report} hold. */
public abstract class KeyValues {
    final Map<String, String> values = new LinkedHashMap<>();

    KeyValues() {
    }

    /** Adds the pair text spells; false, adding nothing, when text has no {@code =} after a key. */
    final boolean putPair(String text) {
        int eq = text.indexOf('=');
        if (eq <= 0) {
            return false;
        }
        values.put(text.substring(0, eq), text.substring(eq + 1));
        return true;
    }

    /** The message of {@link #get} for a key that is not there. */
    abstract String missing(String key);

    public boolean has(String key) {
        return values.containsKey(key);
    }

    public String get(String key) {
        String value = values.get(key);
        if (value == null) {
            throw new IllegalArgumentException(missing(key));
        }
        return value;
    }

    public long getLong(String key, long otherwise) {
        return has(key) ? Long.parseLong(get(key)) : otherwise;
    }

    public Path path(String key) {
        return Path.of(get(key));
    }
}
