package io.stackreq.model;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The sample file's last line ({@code "type":"end"}); absent when the JVM was killed.
 *
 * @param samples samples the agent wrote
 * @param lost    samples the agent lost (its buffer was full)
 * @param errors  how often each jvmtiError came back from RequestStackTrace, by code
 */
public record SampleFileSummary(long samples, long lost, Map<Integer, Long> errors) {

    public SampleFileSummary {
        errors = Collections.unmodifiableMap(new LinkedHashMap<>(errors));
    }
}
