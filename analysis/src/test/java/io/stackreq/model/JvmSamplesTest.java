package io.stackreq.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.stackreq.tree.FrameKey;

/** What JFR's own samples give each method: self (on top) and total (anywhere, once per sample). */
class JvmSamplesTest {
    private static final Frame LOOP = new Frame("app.Trap", "loop", "()V", 9, 0, "JIT compiled");
    private static final Frame REC = new Frame("app.Trap", "rec", "()V", 4, 0, "JIT compiled");
    private static final Frame MAIN = new Frame("app.Trap", "main", "()V", 2, 0, "Interpreted");

    @Test
    void selfCountsTheTopFrameAndTotalEachMethodOncePerSample() {
        JvmSamples.Builder builder = new JvmSamples.Builder();
        builder.declare(JvmSamples.CPU_TIME_SAMPLE);
        for (int i = 0; i < 3; i++) {
            builder.add(JvmSamples.EXECUTION_SAMPLE, List.of(LOOP, MAIN));
        }
        builder.add(JvmSamples.EXECUTION_SAMPLE, List.of(REC, REC, REC, MAIN));
        JvmSamples samples = builder.build();
        assertEquals(Map.of(JvmSamples.EXECUTION_SAMPLE, 4L), samples.counts(), "a type without samples is left out");
        Map<String, JvmSamples.Tally> byMethod = samples.tally(JvmSamples.EXECUTION_SAMPLE, FrameKey.METHOD::of);
        assertEquals(new JvmSamples.Tally(3, 3), byMethod.get("app.Trap.loop"));
        assertEquals(new JvmSamples.Tally(1, 1), byMethod.get("app.Trap.rec"));
        assertEquals(new JvmSamples.Tally(0, 4), byMethod.get("app.Trap.main"));
        assertEquals(new JvmSamples.Tally(1, 1),
                samples.tally(JvmSamples.EXECUTION_SAMPLE, FrameKey.LINE::of).get("app.Trap.rec:4"));
    }
}
