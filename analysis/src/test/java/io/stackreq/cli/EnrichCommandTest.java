package io.stackreq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmc.common.IMCFrame;
import org.openjdk.jmc.common.IMCStackTrace;
import org.openjdk.jmc.common.IMCThread;
import org.openjdk.jmc.common.item.Attribute;
import org.openjdk.jmc.common.item.IAttribute;
import org.openjdk.jmc.common.item.IItem;
import org.openjdk.jmc.common.item.IItemCollection;
import org.openjdk.jmc.common.item.IItemIterable;
import org.openjdk.jmc.common.item.IMemberAccessor;
import org.openjdk.jmc.common.item.ItemFilters;
import org.openjdk.jmc.common.unit.IQuantity;
import org.openjdk.jmc.common.unit.UnitLookup;
import org.openjdk.jmc.flightrecorder.JfrAttributes;
import org.openjdk.jmc.flightrecorder.JfrLoaderToolkit;
import org.openjdk.jmc.flightrecorder.stacktrace.FrameSeparator;
import org.openjdk.jmc.flightrecorder.stacktrace.FrameSeparator.FrameCategorization;
import org.openjdk.jmc.flightrecorder.stacktrace.tree.Node;
import org.openjdk.jmc.flightrecorder.stacktrace.tree.StacktraceTreeModel;

import io.stackreq.fixtures.Cli;
import io.stackreq.fixtures.FixtureRecording;
import io.stackreq.fixtures.Scenario;
import io.stackreq.output.EnrichedRecordingWriter;

/** enrich's output, read back with JMC core the way JMC's own views read it. */
class EnrichCommandTest {
    @TempDir
    static Path directory;
    static Scenario scenario;
    static IItemCollection samples;

    @BeforeAll
    static void enrich() throws Exception {
        scenario = Scenario.write(directory);
        Path output = directory.resolve("profile.jfr");
        Cli.Result result = Cli.run("enrich", scenario.recording, "--samples", scenario.samples, "-o", output);
        assertEquals(0, result.exitCode(), result.err());
        assertTrue(result.err().contains("14 samples, each a jdk.ExecutionSample and a stackreq.PerfSample event"), result.err());
        samples = JfrLoaderToolkit.loadEvents(output.toFile())
                .apply(ItemFilters.type(EnrichedRecordingWriter.EVENT_NAME));
    }

    @Test
    void everyMatchedSampleIsAnEventWithStackThreadTimeAndCounters() {
        IAttribute<IQuantity> taskClock = Attribute.attr("taskClock", "task-clock", UnitLookup.TIMESPAN);
        IAttribute<IQuantity> pageFaults = Attribute.attr("pageFaults", "page-faults", UnitLookup.NUMBER);
        IAttribute<Number> userData = Attribute.attr("userData", "userData", UnitLookup.RAW_NUMBER);
        Map<Long, IItem> byUserData = new HashMap<>();
        int count = 0;
        for (IItemIterable iterable : samples) {
            IMemberAccessor<IMCStackTrace, IItem> stack =
                    JfrAttributes.EVENT_STACKTRACE.getAccessor(iterable.getType());
            IMemberAccessor<IMCThread, IItem> thread = JfrAttributes.EVENT_THREAD.getAccessor(iterable.getType());
            IMemberAccessor<IQuantity, IItem> time = JfrAttributes.START_TIME.getAccessor(iterable.getType());
            IMemberAccessor<IQuantity, IItem> clock = taskClock.getAccessor(iterable.getType());
            IMemberAccessor<IQuantity, IItem> faults = pageFaults.getAccessor(iterable.getType());
            IMemberAccessor<Number, IItem> id = userData.getAccessor(iterable.getType());
            assertNotNull(clock, "taskClock is a timespan JMC can weigh by");
            assertNotNull(faults, "pageFaults is a number JMC can weigh by");
            for (IItem item : iterable) {
                count++;
                long key = id.getMember(item).longValue();
                byUserData.put(key, item);
                if (key == 7) {
                    List<? extends IMCFrame> frames = stack.getMember(item).getFrames();
                    assertEquals(3, frames.size());
                    assertEquals(Scenario.HASH, frames.get(0).getMethod().getType().getFullName() + "."
                            + frames.get(0).getMethod().getMethodName());
                    assertEquals(10, frames.get(0).getFrameLineNumber());
                    assertEquals(Scenario.MAIN, frames.get(2).getMethod().getType().getFullName() + "."
                            + frames.get(2).getMethod().getMethodName());
                    assertEquals("app", frames.get(2).getMethod().getType().getPackage().getName());
                    assertEquals("main", thread.getMember(item).getThreadName());
                    assertEquals(1_000_000, clock.getMember(item).clampedLongValueIn(UnitLookup.NANOSECOND));
                    assertEquals(5, faults.getMember(item).longValue());
                    // The event keeps the request's time: the fixture put event 7 at start + 7 ms.
                    assertEquals(FixtureRecording.START_EPOCH_NANOS + 7_000_000,
                            time.getMember(item).clampedLongValueIn(UnitLookup.EPOCH_NS));
                }
                if (key == 11) {
                    assertEquals("worker", thread.getMember(item).getThreadName());
                    assertEquals(2, faults.getMember(item).longValue());
                }
            }
        }
        assertEquals(14, count);
        assertTrue(byUserData.keySet().containsAll(List.of(1L, 7L, 9L, 11L, 14L, 16L)));
    }

    @Test
    void jmcsOwnStackTraceTreeWeighsByTheCountersLikeOurReport() {
        // JMC's StacktraceTreeModel is what its flame graph view uses: weighted by taskClock it must
        // give the same numbers as stackreq's report (16 ms total, methodA 8 ms).
        StacktraceTreeModel byTime = new StacktraceTreeModel(samples,
                new FrameSeparator(FrameCategorization.METHOD, false), false,
                Attribute.attr("taskClock", "task-clock", UnitLookup.TIMESPAN));
        assertEquals(16_000_000, childrenWeight(byTime.getRoot()), 0.5);
        Node main = child(byTime.getRoot(), "main");
        assertEquals(14_000_000, main.getCumulativeWeight(), 0.5);
        assertEquals(8_000_000, child(main, "methodA").getCumulativeWeight(), 0.5);

        StacktraceTreeModel byFaults = new StacktraceTreeModel(samples,
                new FrameSeparator(FrameCategorization.METHOD, false), false,
                Attribute.attr("pageFaults", "page-faults", UnitLookup.NUMBER));
        assertEquals(12, childrenWeight(byFaults.getRoot()), 1e-9);
    }

    /** JMC 9.1.1's tree leaves the root's own cumulative weight at 0: its children hold the sum. */
    private static double childrenWeight(Node node) {
        return node.getChildren().stream().mapToDouble(Node::getCumulativeWeight).sum();
    }

    private static Node child(Node node, String methodName) {
        for (Node child : node.getChildren()) {
            if (child.getFrame().getMethod().getMethodName().equals(methodName)) {
                return child;
            }
        }
        throw new AssertionError(methodName + " not under " + node.getFrame());
    }

    @Test
    void fieldNamesAreJavaIdentifiers() {
        assertEquals("taskClock", EnrichedRecordingWriter.fieldName("task-clock"));
        assertEquals("l1DcacheLoadMisses", EnrichedRecordingWriter.fieldName("L1-dcache-load-misses"));
        assertEquals("cycles", EnrichedRecordingWriter.fieldName("cycles"));
    }
}
