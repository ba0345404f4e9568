package io.stackreq.tree;

import java.util.Map;
import java.util.TreeMap;

import io.stackreq.join.JoinListener;
import io.stackreq.join.JoinedSample;
import io.stackreq.model.Sample;

/**
 * Builds call trees from matched samples: one over all threads and, on request, one per thread.
 * Unmatched samples have no stack and are left out (the join quality counts them).
 */
public final class TreeBuilder implements JoinListener {
    /** Used for samples whose event does not name its thread. */
    public static final String UNKNOWN_THREAD = "[unknown thread]";

    private final CallTree all;
    private final boolean threadAsRootFrame;
    private final Map<String, CallTree> byThread;
    private final Map<String, ThreadTally> tallies;

    /**
     * @param threadAsRootFrame put the thread name as the first frame of every stack (flame graphs
     *                          and collapsed stacks split by thread)
     * @param perThread         also build one tree per thread (reports split by thread)
     */
    public TreeBuilder(FrameKey key, boolean threadAsRootFrame, boolean perThread) {
        this.all = new CallTree(key);
        this.threadAsRootFrame = threadAsRootFrame;
        this.byThread = perThread ? new TreeMap<>() : null;
        this.tallies = perThread ? new TreeMap<>() : null;
    }

    @Override
    public void accept(JoinedSample joined) {
        if (!joined.matched()) {
            return;
        }
        String thread = threadName(joined);
        all.add(threadAsRootFrame ? thread : null, joined.event().frames(), joined.weight());
        if (byThread != null) {
            byThread.computeIfAbsent(thread, t -> new CallTree(all.key()))
                    .add(null, joined.event().frames(), joined.weight());
            tallies.computeIfAbsent(thread, t -> new ThreadTally()).add(joined);
        }
    }

    public CallTree tree() {
        return all;
    }

    /** Trees by thread name, sorted by name; empty unless built per thread. */
    public Map<String, CallTree> byThread() {
        return byThread == null ? Map.of() : byThread;
    }

    /** Samples, OS ids and kind by thread name, as {@link #byThread()}; empty unless built per thread. */
    public Map<String, ThreadTally> tallies() {
        return tallies == null ? Map.of() : tallies;
    }

    public static String threadName(JoinedSample joined) {
        String name = joined.event() == null ? null : joined.event().threadName();
        if (name != null && !name.isEmpty()) {
            return name;
        }
        return joined.sample() != null && joined.sample().tid() != Sample.UNKNOWN_TID ? "tid " + joined.sample().tid()
                : UNKNOWN_THREAD;
    }
}
