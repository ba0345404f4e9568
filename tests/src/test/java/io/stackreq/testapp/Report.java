package io.stackreq.testapp;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What a workload app tells the test: {@code key=value} lines, written by the child JVM and read
 * by the test. Values never contain newlines; lists are space separated.
 */
public final class Report extends KeyValues {
    /** A report that starts with {@code enable.rc}, what the app's EnableRequestStackTrace call returned. */
    public static Report afterEnable(int enableRc) {
        return new Report().put("enable.rc", enableRc);
    }

    public Report put(String key, Object value) {
        String text = String.valueOf(value);
        if (key.contains("=") || key.contains("\n") || text.contains("\n")) {
            throw new IllegalArgumentException("bad report entry " + key);
        }
        values.put(key, text);
        return this;
    }

    public void write(Path path) throws IOException {
        StringBuilder out = new StringBuilder();
        values.forEach((key, value) -> out.append(key).append('=').append(value).append('\n'));
        Files.writeString(path, out.toString(), StandardCharsets.UTF_8);
    }

    public static Report read(Path path) throws IOException {
        Report report = new Report();
        for (String line : Files.readAllLines(path, StandardCharsets.UTF_8)) {
            report.putPair(line);
        }
        return report;
    }

    @Override
    String missing(String key) {
        return "report has no '" + key + "': " + values.keySet();
    }

    public long getLong(String key) {
        return Long.parseLong(get(key));
    }

    public int getInt(String key) {
        return Integer.parseInt(get(key));
    }

    /** Number of timer requests that returned this jvmtiError (0 when none). */
    public long rc(int code) {
        return getLong("rc." + code, 0);
    }

    public long[] getLongs(String key) {
        String value = get(key).trim();
        if (value.isEmpty()) {
            return new long[0];
        }
        return Arrays.stream(value.split(" ")).mapToLong(Long::parseLong).toArray();
    }

    public List<String> keys() {
        return new ArrayList<>(values.keySet());
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        values.forEach((key, value) -> out.append(key).append('=')
                .append(value.length() > 200 ? value.substring(0, 200) + "..." : value).append('\n'));
        return out.toString();
    }
}
