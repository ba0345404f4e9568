package bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordingFile;

/**
 * A leaf-method profile: for each sample with a Java frame, its topmost Java method
 * ({@code class.method}), counted. What counts as a Java frame: stackreq's frames are all Java
 * frames (a {@code Native} one is a Java native method); async-profiler's C, C++ and kernel frames
 * (types {@code Native}, {@code C++}, {@code Kernel}, and {@code Native} where the class is a
 * library or empty) are passed over, so its samples in VM or library code count for the Java
 * method that called it, as stackreq's do. Samples of every thread; only those timed within the
 * measured phase.
 */
final class MethodProfile {
    /** Samples per method. */
    final Map<String, Long> counts = new HashMap<>();
    /** Per method, the type of the leaf frame in its samples ("JIT compiled", "Inlined", ...), counted. */
    final Map<String, Map<String, Long>> leafTypes = new HashMap<>();
    long total;
    /** Events of the type in the window without any Java frame (failed, or only native code). */
    long withoutJavaFrame;

    private static final Set<String> NOT_JAVA_TYPES = Set.of("C++", "Kernel");

    static MethodProfile read(Path recording, String eventType, long fromMillis, long toMillis) throws IOException {
        MethodProfile profile = new MethodProfile();
        if (!Files.exists(recording)) return profile;
        Instant from = Instant.ofEpochMilli(fromMillis), to = Instant.ofEpochMilli(toMillis);
        try (RecordingFile file = new RecordingFile(recording)) {
            while (file.hasMoreEvents()) {
                RecordedEvent event = file.readEvent();
                if (!event.getEventType().getName().equals(eventType)) continue;
                Instant time = event.getStartTime();
                if (time.isBefore(from) || time.isAfter(to)) continue;
                RecordedFrame leaf = leafJavaFrame(event);
                if (leaf == null) {
                    profile.withoutJavaFrame++;
                    continue;
                }
                String method = name(leaf.getMethod());
                profile.counts.merge(method, 1L, Long::sum);
                profile.leafTypes.computeIfAbsent(method, m -> new HashMap<>()).merge(leaf.getType(), 1L, Long::sum);
                profile.total++;
            }
        }
        return profile;
    }

    static RecordedFrame leafJavaFrame(RecordedEvent event) {
        if (event.getStackTrace() == null) return null;
        for (RecordedFrame frame : event.getStackTrace().getFrames()) {
            if (isJava(frame)) return frame;
        }
        return null;
    }

    static boolean isJava(RecordedFrame frame) {
        String type = frame.getType();
        if (type == null) return frame.isJavaFrame();
        if (NOT_JAVA_TYPES.contains(type)) return false;
        if (type.equals("Native")) {
            // async-profiler's C functions: the "class" is the library (libc.so.6, libjvm.so) or empty.
            String owner = frame.getMethod().getType() == null ? "" : frame.getMethod().getType().getName();
            return !owner.isEmpty() && !owner.matches(".*\\.so(\\.[0-9]+)*|\\[.*\\]");
        }
        return true;
    }

    static String name(RecordedMethod method) {
        return (method.getType() == null ? "?" : method.getType().getName()) + "." + method.getName();
    }

    double share(String method) {
        return total == 0 ? 0 : counts.getOrDefault(method, 0L) / (double) total;
    }

    /** The commonest leaf-frame type of a method's samples, or "" when it has none. */
    String leafType(String method) {
        Map<String, Long> types = leafTypes.get(method);
        if (types == null) return "";
        return types.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse("");
    }

    /** Total variation distance: half the sum of the share differences, 0 (equal) to 1 (disjoint). */
    static double distance(MethodProfile a, MethodProfile b) {
        if (a.total == 0 || b.total == 0) return Double.NaN;
        Set<String> methods = new HashSet<>(a.counts.keySet());
        methods.addAll(b.counts.keySet());
        double sum = 0;
        for (String m : methods) sum += Math.abs(a.share(m) - b.share(m));
        return sum / 2;
    }

    /**
     * The distance sampling alone makes between profiles of these sizes: the median, over draws, of
     * the distance between two profiles of a.total and b.total samples drawn from a and b pooled.
     */
    static double samplingDistance(MethodProfile a, MethodProfile b, int draws) {
        if (a.total == 0 || b.total == 0) return Double.NaN;
        MethodProfile pooled = merged(List.of(a, b));
        List<String> methods = new java.util.ArrayList<>(pooled.counts.keySet());
        java.util.Collections.sort(methods);
        double[] cumulative = new double[methods.size()];
        double sum = 0;
        for (int i = 0; i < methods.size(); i++) {
            sum += pooled.counts.get(methods.get(i));
            cumulative[i] = sum / pooled.total;
        }
        java.util.SplittableRandom random = new java.util.SplittableRandom(42);
        List<Double> distances = new java.util.ArrayList<>();
        for (int d = 0; d < draws; d++) {
            distances.add(distance(draw(methods, cumulative, a.total, random), draw(methods, cumulative, b.total, random)));
        }
        return Stats.median(distances);
    }

    private static MethodProfile draw(List<String> methods, double[] cumulative, long n, java.util.SplittableRandom random) {
        MethodProfile drawn = new MethodProfile();
        for (long i = 0; i < n; i++) {
            int at = java.util.Arrays.binarySearch(cumulative, random.nextDouble());
            if (at < 0) at = -at - 1;
            drawn.counts.merge(methods.get(Math.min(at, methods.size() - 1)), 1L, Long::sum);
        }
        drawn.total = n;
        return drawn;
    }

    /** The profiles of several runs summed into one. */
    static MethodProfile merged(List<MethodProfile> runs) {
        MethodProfile all = new MethodProfile();
        for (MethodProfile run : runs) {
            run.counts.forEach((m, n) -> all.counts.merge(m, n, Long::sum));
            run.leafTypes.forEach((m, types) -> types.forEach((t, n) ->
                    all.leafTypes.computeIfAbsent(m, k -> new HashMap<>()).merge(t, n, Long::sum)));
            all.total += run.total;
            all.withoutJavaFrame += run.withoutJavaFrame;
        }
        return all;
    }
}
