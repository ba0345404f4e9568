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
 * reading of the PC is right. Other frames
 * have no truth here: counted as unchecked, or as undetermined when stackreq wrote no type
 * ("Java"); so is a top frame in compiled code that stackreq left "Java", since the JVM reports
 * compiled code late and stackreq may resolve a request before it hears of the code there.
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
        public final List<String> examples = new ArrayList<>();

        /** Right / checked, in percent. */
        public double rightPercent() {
            return checked == 0 ? Double.NaN : 100.0 * (checked - wrong) / checked;
        }

        public String summary() {
            return checked == 0 ? "-" : String.format(Locale.ROOT,
                    "%.2f%% of %d (%d wrong; %d unchecked, %d undetermined, %d in code not yet reported)",
                    rightPercent(), checked, wrong, unchecked, undetermined, unreported);
        }
    }

    private final CompiledCode compiledCode;

    FrameTypeCheck(CompiledCode compiledCode) {
        this.compiledCode = compiledCode;
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
        for (int i = 0; i < topFirst.size(); i++) {
            Frame frame = topFirst.get(i);
            String expected = i < top.size() && !unreported ? top.get(i) : expectedAnywhere(frame);
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
            if (!expected.equals(frame.type())) {
                tally.wrong++;
                if (tally.examples.size() < 3) {
                    tally.examples.add("request " + snapshot.id() + " frame " + i + " " + frame.key() + ":" + frame.bci()
                            + " is " + frame.type() + ", expected " + expected + " (pc in "
                            + compiledCode.describe(snapshot.pc(), snapshot.codeSequence()) + ")");
                }
            }
        }
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
