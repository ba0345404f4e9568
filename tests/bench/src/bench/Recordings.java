package bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/** What the harness reads back from recordings and sample files. */
final class Recordings {
    private Recordings() {}

    /** Events of the given type whose start time is within [fromMillis, toMillis] (epoch). */
    static long count(Path file, String type, long fromMillis, long toMillis) throws IOException {
        if (!Files.exists(file)) return -1;
        Instant from = Instant.ofEpochMilli(fromMillis), to = Instant.ofEpochMilli(toMillis);
        long n = 0;
        try (RecordingFile recording = new RecordingFile(file)) {
            while (recording.hasMoreEvents()) {
                RecordedEvent e = recording.readEvent();
                if (!e.getEventType().getName().equals(type)) continue;
                Instant t = e.getStartTime();
                if (!t.isBefore(from) && !t.isAfter(to)) n++;
            }
        }
        return n;
    }

    /** Frame counts of every event of the type (stack traces only). */
    static List<Integer> stackDepths(Path file, String type) throws IOException {
        List<Integer> depths = new ArrayList<>();
        if (!Files.exists(file)) return depths;
        try (RecordingFile recording = new RecordingFile(file)) {
            while (recording.hasMoreEvents()) {
                RecordedEvent e = recording.readEvent();
                if (e.getEventType().getName().equals(type) && e.getStackTrace() != null) {
                    depths.add(e.getStackTrace().getFrames().size());
                }
            }
        }
        Collections.sort(depths);
        return depths;
    }

    /** The stackreq.RequestStatistics event with the most requests: {accepted, emitted, dropped, failed}. */
    static long[] lastStatistics(Path file) throws IOException {
        long[] best = null;
        if (!Files.exists(file)) return null;
        try (RecordingFile recording = new RecordingFile(file)) {
            while (recording.hasMoreEvents()) {
                RecordedEvent e = recording.readEvent();
                if (!e.getEventType().getName().equals("stackreq.RequestStatistics")) continue;
                long[] s = {e.getLong("accepted"), e.getLong("emitted"), e.getLong("dropped"), e.getLong("failed")};
                if (best == null || s[0] >= best[0]) best = s;
            }
        }
        return best;
    }

    /** Perf-agent sample lines whose time (CLOCK_MONOTONIC ns) is in [from, to]: {all, error 0}. */
    static long[] perfSamples(Path jsonl, long fromNanos, long toNanos) throws IOException {
        long all = 0, accepted = 0;
        if (!Files.exists(jsonl)) return new long[] {-1, -1};
        try (var lines = Files.lines(jsonl)) {
            for (String line : (Iterable<String>) lines::iterator) {
                if (!line.startsWith("{\"type\":\"sample\"")) continue;
                long time = longField(line, "\"time\":");
                if (time < fromNanos || time > toNanos) continue;
                all++;
                if (longField(line, "\"error\":") == 0) accepted++;
            }
        }
        return new long[] {all, accepted};
    }

    static long longField(String line, String key) {
        int at = line.indexOf(key);
        if (at < 0) return Long.MIN_VALUE;
        int i = at + key.length(), j = i;
        while (j < line.length() && (Character.isDigit(line.charAt(j)) || line.charAt(j) == '-')) j++;
        return Long.parseLong(line.substring(i, j));
    }

    /** {count, p50, p90, p99, max} of one histogram in the agent's latency= JSON. */
    static long[] latency(String json, String name) {
        int at = json.indexOf("\"" + name + "\"");
        if (at < 0) return null;
        String part = json.substring(at, json.indexOf('}', at) + 1);
        return new long[] {longField(part, "\"count\":"), longField(part, "\"p50\":"), longField(part, "\"p90\":"),
                longField(part, "\"p99\":"), longField(part, "\"max\":")};
    }
}
