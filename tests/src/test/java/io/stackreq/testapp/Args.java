package io.stackreq.testapp;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** {@code key=value} command line arguments of every app the tests run in a child JVM. */
public final class Args {
    private final Map<String, String> values = new LinkedHashMap<>();

    private Args() {
    }

    public static Args parse(String[] args) {
        Args parsed = new Args();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("expected key=value: " + arg);
            }
            parsed.values.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        return parsed;
    }

    public boolean has(String key) {
        return values.containsKey(key);
    }

    public String get(String key) {
        String value = values.get(key);
        if (value == null) {
            throw new IllegalArgumentException("missing argument " + key + "=");
        }
        return value;
    }

    public String get(String key, String otherwise) {
        return has(key) ? get(key) : otherwise;
    }

    public int getInt(String key, int otherwise) {
        return has(key) ? Integer.parseInt(get(key)) : otherwise;
    }

    public long getLong(String key, long otherwise) {
        return has(key) ? Long.parseLong(get(key)) : otherwise;
    }

    public double getDouble(String key, double otherwise) {
        return has(key) ? Double.parseDouble(get(key)) : otherwise;
    }

    public boolean getBoolean(String key, boolean otherwise) {
        return has(key) ? Boolean.parseBoolean(get(key)) : otherwise;
    }

    public Path path(String key) {
        return Path.of(get(key));
    }
}
