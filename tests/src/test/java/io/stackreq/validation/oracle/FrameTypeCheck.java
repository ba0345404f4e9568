package io.stackreq.validation.oracle;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

import io.stackreq.validation.oracle.OracleCheck.Frame;
import io.stackreq.validation.oracle.OracleCheck.Snapshot;

/**
 * The frame types of a stack trace against what the oracle knows on its own: a frame of a
 * native method (its modifiers) is "Native" and no other frame is; the frames of the physical
 * frame at the interrupted PC (layer (c)) are what the code there says: "Interpreted" when the
 * PC is in the interpreter, and when it is in a compiled method whose debug record for the PC
 * (the one after it, or the one at it, as in the JIT-scope rule) is exactly the trace's top
 * frames, that record's inlined frames "Inlined" and its last one "JIT compiled". When both
 * records are top frames of the trace with different depths (recursive inlining), either
 * reading of the PC is right.
 * <p>
 * The frames below (layer (c); in layer (b) all Java frames) are checked against the stack words
 * liboracle.so kept at the signal (at the JNI call) that may be return addresses, in stack order
 * (on aarch64 after the signal's link register, where the top frame's return address is until
 * its prologue stores it):
 * a compiled frame's callee returns to the debug record at exactly that address, whose inline
 * stack names the compiled frame and the frames inlined into it. So a run of frames typed
 * "Inlined" ... "JIT compiled" is right when, above the previous such run's word, a stack word is
 * a record whose inline stack is exactly those frames, else wrong. Frames below the end of the
 * scan, when a limit cut it short (4096 words, 1 MiB), or from the first run with no record when
 * a stack word is in code the JVM never reported, after an attach or with the signal's PC in such
 * code, or when code the JVM reported only after the signal records exactly that run's frames
 * (liboracle.so keeps the words in code it knows of at the signal, and replays the code the JVM
 * holds when it finishes, which reports what the JVM had not posted yet), count as unchecked. So
 * do "Interpreted" frames below the top physical frame: the stack words cannot tell them from compiled ones,
 * since an interpreted frame's unused slots keep stale return addresses of compiled code that
 * ran there before (after an attach, of code deoptimized since, in every frame); for the same
 * reason a compiled run's record may be found in a stale word: the check can miss a wrong type
 * (and, when a stale word matched a run beyond the next run's own word, call that one wrong).
 * <p>
 * Frames stackreq wrote no type for ("Java") count as undetermined; so is a top frame in
 * compiled code that stackreq left "Java", since the JVM reports compiled code late and stackreq
 * may resolve a request before it hears of the code there.
 */
public final class FrameTypeCheck {
    public static final String INTERPRETED = "Interpreted";
    public static final String COMPILED = "JIT compiled";
    public static final String INLINED = "Inlined";
    public static final String NATIVE = "Native";
    /** stackreq's type for a Java frame it could not type. */
    public static final String UNDETERMINED = "Java";

    /** Frame counts of one workload in one layer. */
    public static final class Tally {
        public int checked;
        public int wrong;
        public int unchecked;
        public int undetermined;
        /** Of the undetermined: top frames in compiled code not yet reported when the signal came. */
        public int unreported;
        /** Of the checked: frames below the top physical frame, and the wrong ones among them. */
        public int lowerChecked;
        public int lowerWrong;
        public final List<String> examples = new ArrayList<>();

        /** Right / checked, in percent. */
        public double rightPercent() {
            return checked == 0 ? Double.NaN : 100.0 * (checked - wrong) / checked;
        }

        public String summary() {
            return checked == 0 ? "-" : String.format(Locale.ROOT,
                    "%.2f%% of %d (%d wrong; %d of them below the top frame, %d wrong; %d unchecked, %d undetermined, "
                    + "%d in code not yet reported)",
                    rightPercent(), checked, wrong, lowerChecked, lowerWrong, unchecked, undetermined, unreported);
        }
    }

    private final CompiledCode compiledCode;
    /** The compiled code was learnt from the JVM's replay at an attach, which can miss some. */
    private final boolean codeReplayed;

    FrameTypeCheck(CompiledCode compiledCode, boolean codeReplayed) {
        this.compiledCode = compiledCode;
        this.codeReplayed = codeReplayed;
    }

    void check(List<Frame> topFirst, Snapshot snapshot, Tally tally) {
        List<String> top = topFirst.isEmpty() || topFirst.get(0).nativeMethod() ? List.of()
                : expectedTop(topFirst, snapshot);
        // Code installed before its CompiledMethodLoad was posted: stackreq may resolve the
        // request before it hears of the code, and then rightly says it cannot tell.
        boolean unreported = !top.isEmpty() && !compiledCode.reportedAt(snapshot.pc(), snapshot.codeSequence())
                && UNDETERMINED.equals(topFirst.get(0).type());
        if (unreported) {
            tally.unreported++;
        }
        String[] below = unreported ? new String[topFirst.size()] : expectedBelow(topFirst, top.size(), snapshot);
        for (int i = 0; i < topFirst.size(); i++) {
            Frame frame = topFirst.get(i);
            String expected = i < top.size() && !unreported ? top.get(i)
                    : below[i] != null && !frame.nativeMethod() ? below[i] : expectedAnywhere(frame);
            if (frame.key().equals("?") || expected == null) {
                if (UNDETERMINED.equals(frame.type())) {
                    tally.undetermined++;
                } else {
                    tally.unchecked++;
                }
                continue;
            }
            if (UNDETERMINED.equals(frame.type()) && (COMPILED.equals(expected) || INLINED.equals(expected))) {
                // Compiled code whose CompiledMethodLoad the JVM had not posted yet when stackreq
                // resolved the request (it posts them late, from its service thread): stackreq
                // says it cannot tell, which is not a wrong type.
                tally.undetermined++;
                continue;
            }
            tally.checked++;
            boolean lower = below[i] != null && !frame.nativeMethod();
            if (lower) {
                tally.lowerChecked++;
            }
            if (!expected.equals(frame.type())) {
                tally.wrong++;
                if (lower) {
                    tally.lowerWrong++;
                }
                if (tally.examples.size() < 3) {
                    tally.examples.add("request " + snapshot.id() + " frame " + i + " " + frame.key() + ":"
                            + frame.bci() + " is " + frame.type() + ", expected " + expected + " (pc in "
                            + compiledCode.describe(snapshot.pc(), snapshot.codeSequence()) + ")");
                }
            }
        }
    }

    /**
     * The types the stack words say for the frames from index first on (see the class comment),
     * null where they say nothing. first is the end of the top physical frame's frames; when the
     * oracle could not tell them, the end of the ones stackreq typed there. In layer (b) the
     * words start at the JNI function's frame, and every Java frame of the trace is below it.
     */
    private String[] expectedBelow(List<Frame> topFirst, int first, Snapshot snapshot) {
        int n = topFirst.size();
        String[] expected = new String[n];
        if (snapshot.layer() == OracleCheck.Layer.JVMTI || snapshot.codeWords().length == 0) {
            return expected;
        }
        if (first == 0 && snapshot.layer() == OracleCheck.Layer.SIGNAL) {
            while (first < n && !isPhysicalEnd(topFirst.get(first).type())) {
                first++;
            }
            first++;
        }
        // The index of the stack word that holds the previous compiled run's record.
        int word = -1;
        for (int i = first; i < n; i++) {
            if (!isCompiled(topFirst.get(i).type())) {
                continue;
            }
            int end = i;
            while (end < n && INLINED.equals(topFirst.get(end).type())) {
                end++;
            }
            if (end == n || !COMPILED.equals(topFirst.get(end).type())) {
                for (int k = i; k < end; k++) {
                    expected[k] = "a frame inlined into a JIT compiled frame below it";
                }
                i = end;
                continue;
            }
            List<Frame> run = topFirst.subList(i, end + 1);
            int at = recordOf(snapshot, word, run);
            if (at >= 0) {
                word = at;
            } else if (snapshot.codeWordsCut() || codeMayBeUnknown(snapshot) && holdsUnreportedCode(snapshot, word)
                    || compiledCode.reportedLaterWith(run, snapshot.codeSequence())) {
                // Beyond the scanned words the stack says nothing; nor does a return address into
                // code the JVM never reported (which a walk reading the code itself still types)
                // when the oracle's knowledge has such holes: after an attach, or with the signal
                // in code the JVM never reported during the whole run. Nor does a return address
                // into code reported after the signal: liboracle.so kept only the words in code
                // it knew of (under qemu the JVM reports new code late enough for a signal to
                // come from a callee first: 5 of 8,597 frames of the inlining workload on the arm64
                // JDK 17, its compiled caller reported 1 event later).
                break;
            }
            for (int k = i; k <= end; k++) {
                expected[k] = at < 0 ? "no record on the stack for these frames" : k == end ? COMPILED : INLINED;
            }
            i = end;
        }
        return expected;
    }

    private static boolean isCompiled(String type) {
        return INLINED.equals(type) || COMPILED.equals(type);
    }

    private static boolean isPhysicalEnd(String type) {
        return COMPILED.equals(type) || INTERPRETED.equals(type);
    }

    private boolean codeMayBeUnknown(Snapshot snapshot) {
        return codeReplayed || !compiledCode.reported(snapshot.pc(), snapshot.codeSequence())
                && !compiledCode.inInterpreter(snapshot.pc());
    }

    /** Whether a stack word after the one at after lies in code the JVM had not reported. */
    private boolean holdsUnreportedCode(Snapshot snapshot, int after) {
        for (int w = after + 1; w < snapshot.codeWords().length; w++) {
            if (!compiledCode.reported(snapshot.codeWords()[w], snapshot.codeSequence())) {
                return true;
            }
        }
        return false;
    }

    /**
     * The index of the first stack word after the one at after whose record is exactly frames; -1:
     * none. Only words in code reported by the signal count: liboracle.so keeps a word in code the
     * JVM reports while it scans, deep in the stack, a stale copy of a return address whose live
     * one, above it, it did not keep (arm64 JDK 25, 2026-11-28: a caller reported 1 event after
     * the request matched such a copy 600 words down, and the 240 frames below it found no record).
     */
    private int recordOf(Snapshot snapshot, int after, List<Frame> frames) {
        for (int w = after + 1; w < snapshot.codeWords().length; w++) {
            if (!compiledCode.reportedAt(snapshot.codeWords()[w], snapshot.codeSequence())) {
                continue;
            }
            List<CompiledCode.Scope> scope = compiledCode.scopeRecordedAt(snapshot.codeWords()[w],
                    snapshot.codeSequence());
            if (scope != null && scope.size() == frames.size() && OracleCheck.startsWith(frames, scope)) {
                return w;
            }
        }
        return -1;
    }

    /** What any frame's method says: a native method's frame is Native, no other is; null: no truth. */
    private static String expectedAnywhere(Frame frame) {
        if (frame.nativeMethod()) {
            return NATIVE;
        }
        return NATIVE.equals(frame.type()) ? "a Java frame's type (the method is not native)" : null;
    }

    /**
     * The types of the top physical frame's frames, top first, from the code at the PC: of the
     * readings the code allows, the one the trace has if any, else the first; empty when unknown.
     */
    private List<String> expectedTop(List<Frame> topFirst, Snapshot snapshot) {
        if (snapshot.layer() != OracleCheck.Layer.SIGNAL) {
            return List.of();
        }
        if (compiledCode.inInterpreter(snapshot.pc())) {
            return List.of(INTERPRETED);
        }
        List<List<String>> readings = new ArrayList<>();
        for (List<CompiledCode.Scope> scope : compiledCode.scopesAt(snapshot.pc(), snapshot.codeSequence())) {
            if (topFirst.size() >= scope.size() && OracleCheck.startsWith(topFirst, scope)) {
                List<String> types = new ArrayList<>(Collections.nCopies(scope.size() - 1, INLINED));
                types.add(COMPILED);
                readings.add(types);
            }
        }
        for (List<String> types : readings) {
            if (hasTypes(topFirst, types)) {
                return types;
            }
        }
        return readings.isEmpty() ? List.of() : readings.get(0);
    }

    private static boolean hasTypes(List<Frame> topFirst, List<String> types) {
        for (int i = 0; i < types.size(); i++) {
            if (!types.get(i).equals(topFirst.get(i).type())) {
                return false;
            }
        }
        return true;
    }
}
