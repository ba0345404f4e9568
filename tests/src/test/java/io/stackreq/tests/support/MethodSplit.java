package io.stackreq.tests.support;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Methods' shares of a profile (their self samples in {@code stackreq report --format json})
 * against their shares of the CPU time the profiled JVM measured in each, both as percentages of
 * the methods' sum; shared by the attach tests on x86_64 and tests/aarch64/CheckAttach.java.
 */
public record MethodSplit(String[] methods, double[] measured, double[] truth, double measuredSum) {

    /**
     * The split of a report's entries for methods, against cpuAfter - cpuBefore (per method, in
     * the same order); a method the report does not name has no samples.
     */
    public static MethodSplit of(JsonNode report, String[] methods, long[] cpuBefore, long[] cpuAfter) {
        double[] truth = new double[methods.length];
        double[] measured = new double[methods.length];
        double truthSum = 0;
        double measuredSum = 0;
        for (int i = 0; i < methods.length; i++) {
            truth[i] = cpuAfter[i] - cpuBefore[i];
            for (JsonNode entry : report.path("entries")) {
                if (entry.path("name").asText().equals(methods[i])) {
                    measured[i] = entry.path("selfPct").asDouble();
                }
            }
            truthSum += truth[i];
            measuredSum += measured[i];
        }
        for (int i = 0; i < methods.length; i++) {
            truth[i] = 100 * truth[i] / truthSum;
            measured[i] = 100 * measured[i] / Math.max(1e-9, measuredSum);
        }
        return new MethodSplit(methods, measured, truth, measuredSum);
    }

    /** The methods the report does not name. */
    public List<String> missing(JsonNode report) {
        List<String> missing = new ArrayList<>(List.of(methods));
        for (JsonNode entry : report.path("entries")) {
            missing.remove(entry.path("name").asText());
        }
        return missing;
    }

    /** Each method's share, measured vs truth, and the methods' part of all samples. */
    public String describe() {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < methods.length; i++) {
            String method = methods[i].substring(methods[i].lastIndexOf('.') + 1);
            text.append(String.format(Locale.ROOT, " %s %.2f%% vs %.2f%% (%+.2f);", method, measured[i], truth[i],
                    measured[i] - truth[i]));
        }
        return text.append(String.format(Locale.ROOT, " the %d are %.1f%% of all samples", methods.length,
                measuredSum)).toString();
    }
}
