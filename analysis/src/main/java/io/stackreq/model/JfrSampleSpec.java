package io.stackreq.model;

import java.util.ArrayList;
import java.util.List;

/**
 * Which events of a JFR file are the samples to join, and which of their fields say what.
 *
 * @param eventTypes the sample event types; empty for Datadog's {@link #DATADOG_TYPES}, those the file holds
 * @param key        the long field holding the userData passed to RequestStackTrace, or null for {@link #DEFAULT_KEY}
 * @param weight     the numeric field to weigh each sample by, or null to count samples
 */
public record JfrSampleSpec(List<String> eventTypes, String key, String weight) {
    /** The events Datadog's java-profiler writes in its {@code jvmtistacks} mode. */
    public static final List<String> DATADOG_TYPES = List.of("datadog.ExecutionSample", "datadog.MethodSample");
    /** Datadog's field for the userData it passed to RequestStackTrace (0: the sample was not delegated). */
    public static final String DEFAULT_KEY = "correlationId";
    /** The metric's name when samples are counted. */
    public static final String COUNT = "samples";

    public JfrSampleSpec {
        // "a, b" as typed in a shell means a and b.
        eventTypes = eventTypes == null ? List.of()
                : eventTypes.stream().map(String::strip).filter(type -> !type.isEmpty()).toList();
    }

    public static JfrSampleSpec defaults() {
        return new JfrSampleSpec(List.of(), null, null);
    }

    /** Whether any choice was made (the perf agent's sample files take none). */
    public boolean isDefault() {
        return eventTypes.isEmpty() && key == null && weight == null;
    }

    /** The options that made the choices, as typed, for messages. */
    public String options() {
        List<String> given = new ArrayList<>();
        if (!eventTypes.isEmpty()) {
            given.add("--sample-event");
        }
        if (key != null) {
            given.add("--key");
        }
        if (weight != null) {
            given.add("--weight");
        }
        return String.join(", ", given);
    }

    public String keyField() {
        return key == null ? DEFAULT_KEY : key;
    }

    /** The metric: the weight field's name, or {@link #COUNT}. */
    public String metricName() {
        return weight == null ? COUNT : weight;
    }
}
