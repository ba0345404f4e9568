package io.stackreq.join;

import static io.stackreq.fixtures.FixtureFrame.jit;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.stackreq.fixtures.FixtureRecording;
import io.stackreq.fixtures.FixtureSamples;
import io.stackreq.join.JoinedSample.Status;
import io.stackreq.model.JfrSampleSpec;

class JoinerTest {
    @TempDir
    Path directory;

    /**
     * Events whose userData are not in file order (the join then searches a sorted index) and
     * repeat: the first event of a userData in the file is the one a sample joins, whichever
     * order the file has.
     */
    @Test
    void joinsTheFirstEventOfEachUserDataWhateverTheFileOrder() throws IOException {
        Path samples = new FixtureSamples("task-clock").sample(1, 7, 100).sample(3, 7, 200).sample(3, 7, 400)
                .sample(5, 7, 800).sample(9, 7, 1600).withError(11, 7, 23, 3200).write(directory.resolve("s.jsonl"));
        Path shuffled = new FixtureRecording()
                .stack(5, "main", jit("app.A", "five", 5))
                .stack(3, "worker", jit("app.A", "three", 3))
                .stack(3, "main", jit("app.A", "threeAgain", 3))
                .event(1, "main", 1, true, false)
                .stack(7, "main", jit("app.A", "seven", 7))
                .write(directory.resolve("shuffled.jfr"));
        Path ascending = new FixtureRecording()
                .event(1, "main", 1, true, false)
                .stack(3, "worker", jit("app.A", "three", 3))
                .stack(3, "main", jit("app.A", "threeAgain", 3))
                .stack(5, "main", jit("app.A", "five", 5))
                .stack(7, "main", jit("app.A", "seven", 7))
                .write(directory.resolve("ascending.jfr"));
        for (Path recording : List.of(shuffled, ascending)) {
            List<JoinedSample> joined = new ArrayList<>();
            JoinQuality quality = JoinRunner.run(JoinInputs.of(recording, samples),
                    (contents, metric, header) -> List.of(joined::add)).quality();
            assertEquals(List.of(Status.FAILED_EVENT, Status.MATCHED, Status.DUPLICATE, Status.MATCHED,
                    Status.NO_EVENT, Status.REJECTED), joined.stream().map(JoinedSample::status).toList(),
                    recording.toString());
            assertEquals("app.A.three", joined.get(1).event().frames().get(0).qualifiedMethod());
            assertEquals("worker", joined.get(1).event().threadName());
            assertEquals("app.A.five", joined.get(3).event().frames().get(0).qualifiedMethod());
            assertEquals(List.of(6L, 2L, 1000L, 1L, 1600L, 1L, 100L, 1L, 1L, 5L, 1L, 1L),
                    List.of(quality.samples(), quality.matched(), quality.matchedWeight(), quality.noEvent(),
                            quality.noEventWeight(), quality.failedEvent(), quality.failedEventWeight(),
                            quality.rejected(), quality.duplicateSamples(), quality.events(),
                            quality.eventsWithoutSample(), quality.duplicateEvents()),
                    recording.toString());
            assertEquals(Map.of(23, 1L), quality.rejectedByError());
        }
    }
    /** One requester's events among another's, out of userData order: only its own join, each once. */
    @Test
    void joinsTheEventsOfOneRequesterOnly() throws IOException {
        Path samples = new FixtureSamples("task-clock").sample(1, 7, 100).sample(2, 7, 200).sample(3, 7, 400)
                .write(directory.resolve("mine.jsonl"));
        Path recording = new FixtureRecording()
                .requester("libother.so").stack(1, "main", jit("other.B", "one", 1))
                .requester("libmine.so").stack(3, "main", jit("mine.A", "three", 3))
                .requester("libother.so").stack(2, "main", jit("other.B", "two", 2))
                .requester("libmine.so").stack(1, "main", jit("mine.A", "one", 1))
                .stack(2, "main", jit("mine.A", "two", 2))
                .requester("libother.so").stack(3, "main", jit("other.B", "three", 3))
                .write(directory.resolve("two.jfr"));
        List<JoinedSample> joined = new ArrayList<>();
        JoinOutcome outcome = JoinRunner.run(new JoinInputs(recording, samples, null, JfrSampleSpec.defaults(),
                "libmine.so"), (contents, metric, header) -> List.of(joined::add));
        assertEquals(List.of("mine.A.one", "mine.A.two", "mine.A.three"),
                joined.stream().map(sample -> sample.event().frames().get(0).qualifiedMethod()).toList());
        assertEquals(List.of(3L, 3L, 0L, 0L), List.of(outcome.quality().matched(), outcome.quality().events(),
                outcome.quality().eventsWithoutSample(), outcome.quality().duplicateEvents()));
        assertEquals(Map.of("libother.so", 3L), outcome.scope().otherRequesters());
    }
}
