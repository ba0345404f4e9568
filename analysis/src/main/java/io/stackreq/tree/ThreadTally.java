package io.stackreq.tree;

import java.util.List;
import java.util.TreeSet;

import io.stackreq.join.JoinedSample;
import io.stackreq.model.Sample;

/**
 * What the matched samples of one thread (as {@link TreeBuilder} names threads) say about it: how
 * many there are, its OS thread ids (each sample's tid; none without a sample file or with JFR samples) and whether
 * it is a Java thread (its events carry a Java thread id) or one JVMTI does not show: the JVM's
 * own (GC workers, JIT compilers, VM thread) or a native one, whose Java thread id is 0 as JFR
 * writes them. A recording whose thread type has no Java thread id leaves the kind unknown.
 */
public final class ThreadTally {
    /** Kinds, as {@code report --threads} prints them. */
    public static final String JAVA = "Java";
    public static final String INTERNAL = "JVM-internal";
    public static final String UNKNOWN = "unknown";

    private long samples;
    private boolean javaThread;
    private boolean internalThread;
    private final TreeSet<Long> osThreadIds = new TreeSet<>();

    void add(JoinedSample joined) {
        samples++;
        Long javaId = joined.event().javaThreadId();
        javaThread |= javaId != null && javaId > 0;
        internalThread |= javaId != null && javaId == 0;
        if (joined.sample() != null && joined.sample().tid() != Sample.UNKNOWN_TID) {
            osThreadIds.add(joined.sample().tid());
        }
    }

    public long samples() {
        return samples;
    }

    /** Ascending; empty when the join had no sample file. */
    public List<Long> osThreadIds() {
        return List.copyOf(osThreadIds);
    }

    /** {@link #JAVA}, {@link #INTERNAL}, or {@link #UNKNOWN} when the events carry no Java thread id. */
    public String kind() {
        return javaThread ? JAVA : internalThread ? INTERNAL : UNKNOWN;
    }
}
