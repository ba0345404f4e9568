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
 * frames, that record's inlined frames "Inlined" and its last one "JIT compiled". Other frames
 * have no truth here: counted as unchecked, or as undetermined when stackreq wrote no type
 * ("Java").
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
        public final List<String> examples = new ArrayList<>();

        /** Right / checked, in percent. */
        public double rightPercent() {
            return checked == 0 ? Double.NaN : 100.0 * (checked - wrong) / checked;
        }

        public String summary() {
            return checked == 0 ? "-" : String.format(Locale.ROOT, "%.2f%% of %d (%d wrong; %d unchecked, %d undetermined)",
                    rightPercent(), checked, wrong, unchecked, undetermined);
        }
    }

    private final CompiledCode compiledCode;

    FrameTypeCheck(CompiledCode compiledCode) {
        this.compiledCode = compiledCode;
    }

    void check(List<Frame> topFirst, Snapshot snapshot, Tally tally) {
        List<String> top = topFirst.isEmpty() || topFirst.get(0).nativeMethod() ? List.of()
                : expectedTop(topFirst, snapshot);
        for (int i = 0; i < topFirst.size(); i++) {
            Frame frame = topFirst.get(i);
            String expected = i < top.size() ? top.get(i) : expectedAnywhere(frame);
            if (frame.key().equals("?") || expected == null) {
                if (UNDETERMINED.equals(frame.type())) {
                    tally.undetermined++;
                } else {
                    tally.unchecked++;
                }
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

    /** The types of the top physical frame's frames, top first, from the code at the PC; empty when unknown. */
    private List<String> expectedTop(List<Frame> topFirst, Snapshot snapshot) {
        if (snapshot.layer() != OracleCheck.Layer.SIGNAL) {
            return List.of();
        }
        if (compiledCode.inInterpreter(snapshot.pc())) {
            return List.of(INTERPRETED);
        }
        for (List<CompiledCode.Scope> scope : compiledCode.scopesAt(snapshot.pc(), snapshot.codeSequence())) {
            if (topFirst.size() >= scope.size() && OracleCheck.startsWith(topFirst, scope)) {
                List<String> types = new ArrayList<>(Collections.nCopies(scope.size() - 1, INLINED));
                types.add(COMPILED);
                return types;
            }
        }
        return List.of();
    }
}
