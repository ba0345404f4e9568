package io.stackreq.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import io.stackreq.join.JoinOutcome;
import io.stackreq.model.JvmSamples;
import io.stackreq.tree.CallTree;
import io.stackreq.tree.CallTree.Node;
import io.stackreq.tree.ThreadTally;

/** Turns call trees into report rows: self and total per method, line or stack. */
public final class ReportBuilder {
    private final Grouping grouping;
    private final int top;

    /** @param top at most this many rows per table; 0 or less for all */
    public ReportBuilder(Grouping grouping, int top) {
        this.grouping = grouping;
        this.top = top;
    }

    /** @param tallies what the samples say of each thread of byThread (same keys) */
    public Report build(JoinOutcome outcome, CallTree all, Map<String, CallTree> byThread,
            Map<String, ThreadTally> tallies) {
        long totalWeight = all.root().total();
        JvmSamples jvmSamples = outcome.recording().jvmSamples();
        Map<String, Long> jfrSamples = jvmSamples.counts();
        List<ThreadReport> threads = null;
        if (!byThread.isEmpty()) {
            threads = new ArrayList<>();
            for (Map.Entry<String, CallTree> thread : byThread.entrySet()) {
                long threadWeight = thread.getValue().root().total();
                ThreadTally tally = tallies.get(thread.getKey());
                threads.add(new ThreadReport(new ThreadReport.Identity(thread.getKey(), tally.osThreadIds(),
                        tally.kind()), tally.samples(), threadWeight, percent(threadWeight, totalWeight),
                        entries(thread.getValue(), totalWeight, null)));
            }
            threads.sort(Comparator.comparingLong(ThreadReport::totalWeight).reversed()
                    .thenComparing(thread -> thread.identity().thread()));
        }
        return new Report(
                new Report.Inputs(outcome.recording().file().toString(),
                        outcome.samplesFile() == null ? null : outcome.samplesFile().toString()),
                new Report.Legend(outcome.metric().name(), outcome.metric().unit(), grouping.optionName()),
                new Report.Totals(totalWeight, outcome.quality().matched(), outcome.quality().unmatched()),
                Report.Quality.of(outcome.quality()), outcome.scope(), new Report.Tables(entries(all, totalWeight,
                        withJfrShares(jvmSamples, jfrSamples)), threads), jfrSamples.isEmpty() ? null : jfrSamples);
    }

    /** What adds the JVM's samplers' shares to each row, or null when there are none to add. */
    private UnaryOperator<ReportEntry> withJfrShares(JvmSamples jvmSamples, Map<String, Long> counts) {
        if (counts.isEmpty() || grouping == Grouping.STACK) {
            return null;
        }
        Map<String, Map<String, JvmSamples.Tally>> tallies = new LinkedHashMap<>();
        counts.keySet().forEach(type -> tallies.put(type, jvmSamples.tally(type, grouping.frameKey()::of)));
        return entry -> {
            String key = entry.line() == null ? entry.name() : entry.name() + ":" + entry.line();
            Map<String, ReportEntry.JfrShare> shares = new LinkedHashMap<>();
            tallies.forEach((type, byKey) -> {
                JvmSamples.Tally tally = byKey.getOrDefault(key, new JvmSamples.Tally(0, 0));
                shares.put(type, new ReportEntry.JfrShare(percent(tally.self(), counts.get(type)),
                        percent(tally.total(), counts.get(type))));
            });
            return new ReportEntry(entry.name(), entry.line(), entry.stack(), entry.weights(), shares);
        };
    }

    /** @param jfrShares adds the JVM's samplers' shares to a row, or null */
    private List<ReportEntry> entries(CallTree tree, long totalWeight, UnaryOperator<ReportEntry> jfrShares) {
        List<ReportEntry> entries = grouping == Grouping.STACK ? stackEntries(tree, totalWeight)
                : frameEntries(tree, totalWeight);
        entries.sort(Comparator.comparingLong((ReportEntry entry) -> entry.weights().self()).reversed()
                .thenComparing(Comparator.comparingLong((ReportEntry entry) -> entry.weights().total()).reversed())
                .thenComparing(ReportEntry::name));
        List<ReportEntry> shown = top > 0 && entries.size() > top ? new ArrayList<>(entries.subList(0, top)) : entries;
        if (jfrShares != null) {
            shown.replaceAll(jfrShares);
        }
        return shown;
    }

    /** Self and total per frame key; total counts a key once per sample even when it recurses. */
    private List<ReportEntry> frameEntries(CallTree tree, long totalWeight) {
        Map<String, long[]> selfAndTotal = new LinkedHashMap<>();
        Map<String, Node> firstNode = new HashMap<>();
        Map<String, Integer> onPath = new HashMap<>();
        walk(tree.root(), node -> {
            long[] sums = selfAndTotal.computeIfAbsent(node.name(), k -> new long[2]);
            firstNode.putIfAbsent(node.name(), node);
            sums[0] += node.self();
            // A node's total already holds every sample below it: add it only at the topmost
            // occurrence of its key on the path, so recursion does not count a sample twice.
            if (onPath.merge(node.name(), 1, Integer::sum) == 1) {
                sums[1] += node.total();
            }
        }, node -> onPath.merge(node.name(), -1, Integer::sum));

        List<ReportEntry> entries = new ArrayList<>();
        for (Map.Entry<String, long[]> entry : selfAndTotal.entrySet()) {
            Node node = firstNode.get(entry.getKey());
            if (node.frame() == null) {
                continue;
            }
            long self = entry.getValue()[0];
            long total = entry.getValue()[1];
            entries.add(new ReportEntry(node.frame().qualifiedMethod(),
                    grouping == Grouping.LINE ? node.frame().lineNumber() : null, null,
                    new ReportEntry.Weights(self, percent(self, totalWeight), total, percent(total, totalWeight)),
                    null));
        }
        return entries;
    }

    private List<ReportEntry> stackEntries(CallTree tree, long totalWeight) {
        List<ReportEntry> entries = new ArrayList<>();
        walk(tree.root(), node -> {
            if (node.self() > 0 && node.frame() != null) {
                List<Node> path = node.pathFromRoot();
                List<String> stack = new ArrayList<>(path.size());
                for (int i = path.size() - 1; i >= 0; i--) {
                    stack.add(path.get(i).name());
                }
                double pct = percent(node.self(), totalWeight);
                // A stack's total is its self: nothing is above its top frame.
                entries.add(new ReportEntry(node.frame().qualifiedMethod(), null, stack,
                        new ReportEntry.Weights(node.self(), pct, node.self(), pct), null));
            }
        }, node -> {
        });
        return entries;
    }

    /** Depth-first without recursion: stacks can be thousands of frames deep. */
    private static void walk(Node root, java.util.function.Consumer<Node> enter,
            java.util.function.Consumer<Node> leave) {
        record Visit(Node node, boolean leaving) {
        }
        java.util.ArrayDeque<Visit> pending = new java.util.ArrayDeque<>();
        for (Node child : root.children()) {
            pending.push(new Visit(child, false));
        }
        while (!pending.isEmpty()) {
            Visit visit = pending.pop();
            if (visit.leaving()) {
                leave.accept(visit.node());
                continue;
            }
            enter.accept(visit.node());
            pending.push(new Visit(visit.node(), true));
            for (Node child : visit.node().children()) {
                pending.push(new Visit(child, false));
            }
        }
    }

    static double percent(long part, long whole) {
        return whole == 0 ? 0 : round(100.0 * part / whole);
    }

    /** Three decimals: enough to compare, short enough to read. */
    static double round(double value) {
        return Math.round(value * 1000) / 1000.0;
    }
}
