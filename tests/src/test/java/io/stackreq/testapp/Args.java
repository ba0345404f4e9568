package io.stackreq.testapp;

/** {@code key=value} command line arguments of every app the tests run in a child JVM. */
public final class Args extends KeyValues {
    private Args() {
    }

    public static Args parse(String[] args) {
        Args parsed = new Args();
        for (String arg : args) {
            if (!parsed.putPair(arg)) {
                throw new IllegalArgumentException("expected key=value: " + arg);
            }
        }
        return parsed;
    }

    @Override
    String missing(String key) {
        return "missing argument " + key + "=";
    }

    public String get(String key, String otherwise) {
        return has(key) ? get(key) : otherwise;
    }

    public int getInt(String key, int otherwise) {
        return has(key) ? Integer.parseInt(get(key)) : otherwise;
    }

    public double getDouble(String key, double otherwise) {
        return has(key) ? Double.parseDouble(get(key)) : otherwise;
    }

    public boolean getBoolean(String key, boolean otherwise) {
        return has(key) ? Boolean.parseBoolean(get(key)) : otherwise;
    }
}
