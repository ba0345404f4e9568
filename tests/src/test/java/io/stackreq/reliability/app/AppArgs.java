package io.stackreq.reliability.app;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** {@code key=value} command-line arguments of the reliability workloads. */
final class AppArgs {
    private final Map<String, String> values = new LinkedHashMap<>();

    static AppArgs parse(String[] args) {
        AppArgs parsed = new AppArgs();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("expected key=value: " + arg);
            }
            parsed.values.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        return parsed;
    }

    boolean has(String key) {
        return values.containsKey(key);
    }

    String get(String key) {
        String value = values.get(key);
        if (value == null) {
            throw new IllegalArgumentException("missing argument " + key + "=");
        }
        return value;
    }

    String get(String key, String otherwise) {
        return has(key) ? get(key) : otherwise;
    }

    int getInt(String key, int otherwise) {
        return has(key) ? Integer.parseInt(get(key)) : otherwise;
    }

    long getLong(String key, long otherwise) {
        return has(key) ? Long.parseLong(get(key)) : otherwise;
    }

    double getDouble(String key, double otherwise) {
        return has(key) ? Double.parseDouble(get(key)) : otherwise;
    }

    Path path(String key) {
        return Path.of(get(key));
    }
}
