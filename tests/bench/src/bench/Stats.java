package bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/** Medians, spreads and number formatting for the tables. */
final class Stats {
    private Stats() {}

    static double median(List<Double> values) {
        if (values.isEmpty()) return Double.NaN;
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    static double min(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    }

    static double max(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    /** "0.953 (0.912–0.971)": median and min–max of ratios. */
    static String ratio(List<Double> values) {
        if (values.isEmpty()) return "–";
        if (values.size() == 1) return f3(values.get(0));
        return f3(median(values)) + " (" + f3(min(values)) + "–" + f3(max(values)) + ")";
    }

    static String f3(double v) { return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, "%.3f", v); }

    static String f1(double v) { return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, "%.1f", v); }

    static String f0(double v) { return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, "%.0f", v); }

    /** Nanoseconds as "850 ns", "1.7 µs", "15 µs". */
    static String nanos(double ns) {
        if (Double.isNaN(ns)) return "–";
        if (ns < 1000) return String.format(Locale.ROOT, "%.0f ns", ns);
        if (ns < 10000) return String.format(Locale.ROOT, "%.1f µs", ns / 1000);
        return String.format(Locale.ROOT, "%.0f µs", ns / 1000);
    }

    static String mib(double bytes) {
        return Double.isNaN(bytes) ? "–" : String.format(Locale.ROOT, "%.1f", bytes / (1024 * 1024));
    }

    static String signedMib(double bytes) {
        return Double.isNaN(bytes) ? "–" : String.format(Locale.ROOT, "%+.1f", bytes / (1024 * 1024));
    }
}
