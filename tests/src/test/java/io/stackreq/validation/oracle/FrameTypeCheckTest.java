package io.stackreq.validation.oracle;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.stackreq.validation.oracle.OracleCheck.Frame;
import io.stackreq.validation.oracle.OracleCheck.Layer;
import io.stackreq.validation.oracle.OracleCheck.Snapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The frame-type check's rules for the words that may hold the caller's return address, on a
 * made-up run: a signal in "callee" (compiled alone, reported as event 1), whose caller is
 * "caller" with "inner" inlined (reported as event 2), returning to the record at 0x2010.
 */
class FrameTypeCheckTest {
    private static final String CALLEE = "p.C#callee()V";
    private static final String INNER = "p.C#inner()V";
    private static final String CALLER = "p.C#caller()V";
    /** A word in the callee's code that is no debug record: the scan kept something, not the return address. */
    private static final long NO_RECORD = 0x1080;
    private static final long RETURN_ADDRESS = 0x2010;

    @TempDir
    Path dir;

    private final List<Frame> trace = List.of(new Frame(CALLEE, 1, 5, FrameTypeCheck.COMPILED, false),
            new Frame(INNER, 2, 7, FrameTypeCheck.INLINED, false),
            new Frame(CALLER, 3, 3, FrameTypeCheck.COMPILED, false));

    private FrameTypeCheck.Tally check(long sequence, int[] indexes, long[] words, String... laterLines)
            throws IOException {
        Path file = dir.resolve("compiled-code.txt");
        Files.writeString(file, String.join("\n", "M 10 " + CALLEE, "M 20 " + CALLER, "M 30 " + INNER,
                "L 1 1000 256 10", "P 1040 10:5", "L 2 2000 256 20", "P 2010 30:7 20:3", "")
                + String.join("\n", laterLines));
        Snapshot snapshot = new Snapshot(1, Layer.SIGNAL, 1, 1, 0, 0, 0, 0, 0x103c, sequence, new int[0],
                new int[0], indexes, words, false);
        FrameTypeCheck.Tally tally = new FrameTypeCheck.Tally();
        new FrameTypeCheck(CompiledCode.read(file), false).check(trace, snapshot, tally);
        return tally;
    }

    @Test
    void aCallerWithoutItsRecordOnTheStackIsWrong() throws IOException {
        FrameTypeCheck.Tally tally = check(2, new int[] {5}, new long[] {NO_RECORD});
        assertEquals(3, tally.checked, tally.summary());
        assertEquals(2, tally.wrong, tally.summary());
    }

    @Test
    void theReplayAtTheEndOfCodeKnownAtTheSignalExcusesNoMissingRecord() throws IOException {
        // liboracle.so replays the code the JVM holds when it finishes (events 3 and 4): the
        // caller's code, known since event 2, is not code reported after the signal.
        FrameTypeCheck.Tally tally = check(2, new int[] {5}, new long[] {NO_RECORD},
                "L 3 1000 256 10", "P 1040 10:5", "L 4 2000 256 20", "P 2010 30:7 20:3", "");
        assertEquals(3, tally.checked, tally.summary());
        assertEquals(2, tally.wrong, tally.summary());
    }

    @Test
    void aReturnAddressInTheLinkRegisterIsTheCallersRecord() throws IOException {
        FrameTypeCheck.Tally tally = check(2, new int[] {-1, 5}, new long[] {RETURN_ADDRESS, NO_RECORD});
        assertEquals(3, tally.checked, tally.summary());
        assertEquals(0, tally.wrong, tally.summary());
    }

    @Test
    void aCallerReportedAfterTheSignalIsUnchecked() throws IOException {
        // At event 1 the caller's code was not known: liboracle.so could keep no word there.
        FrameTypeCheck.Tally tally = check(1, new int[] {5}, new long[] {NO_RECORD});
        assertEquals(1, tally.checked, tally.summary());
        assertEquals(0, tally.wrong, tally.summary());
        assertEquals(2, tally.unchecked, tally.summary());
    }

    @Test
    void aWordKeptInCodeReportedAfterTheSignalIsNoRecord() throws IOException {
        // The caller's code was reported while liboracle.so scanned: it kept a word there, which
        // may be a stale copy deeper in the stack, not the caller's live return address.
        FrameTypeCheck.Tally tally = check(1, new int[] {5, 9}, new long[] {NO_RECORD, RETURN_ADDRESS});
        assertEquals(1, tally.checked, tally.summary());
        assertEquals(0, tally.wrong, tally.summary());
        assertEquals(2, tally.unchecked, tally.summary());
    }
}
