package io.stackreq.validation.oracle;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Compares stack traces with shadow stacks.
 *
 * <p><b>The comparison rule.</b> Of the stack trace, only the frames of woven methods count
 * (found by "class#name(descriptor)" in the agent's method table); every other frame (JDK code,
 * lambda bodies, constructors, native methods, C frames) is skipped, wherever it is. The woven
 * frames, bottom to top, must be the shadow stack's frames: the same methods in the same order,
 * and every frame but the topmost woven one at the line of the call the shadow stack says it
 * is making. The top frame's line is not compared (the shadow stack does not follow lines
 * between calls).
 *
 * <p><b>Transitions.</b> Pushing and popping are instructions of their own, next to the real
 * frame change, so at some instants the stack trace is one frame ahead of the shadow stack. One
 * more woven frame on top of the trace is accepted only when the thread is known to be exactly
 * there:
 * <ul>
 * <li>the trace has one more frame and the snapshot's flag is CALLING (set by a woven caller
 * before a call instruction, cleared by the callee's push): the callee's frame exists, its push
 * has not happened;</li>
 * <li>the trace has one more frame whose line is -1: its bytecode index lies before the method's
 * first line, i.e. in the woven {@code enter} sequence, before the push (the caller was not woven,
 * so no flag was set);</li>
 * <li>the trace has one more frame, the flag is EXITING (set by a method's exit before it pops,
 * cleared after the call returns) and that frame is the method the snapshot says was just
 * popped;</li>
 * </ul>
 * <p><b>Samples inside the instrumentation.</b> When a method of {@link ShadowStack} is in the
 * trace above its topmost woven frame (with only the JDK code it calls above it), the sample
 * landed in a push, pop or flag update itself. There the JIT's debug information decides which
 * inlined frames the instruction belongs to, so such a sample is only checked for consistency:
 * the trace's woven frames and the shadow stack must agree frame by frame on their common part
 * (methods, and lines below the top woven frame of either side) and may differ only in how many
 * frames sit on top. These are counted apart ("in instrumentation").
 *
 * <p><b>The JIT's scope (layer (c) only).</b> Inside one compiled method the JIT moves
 * instructions of inlined callees across the instrumentation's stores (a callee's arithmetic
 * before its push, a loop after a later call's flag store), and some instructions carry the
 * scope of the next debug record: at such a PC the JVM itself says the thread is in other
 * inlined frames than the shadow stack does. The signal's PC is recorded with the snapshot and
 * the JIT's debug records with the run (liboracle.so, {@link CompiledCode}), so a sample is
 * accepted as "JIT scope" when, and only when, its top frames are exactly (method and bytecode
 * index) the inline stack the debug information gives for that PC (the record after it, or the
 * one at it), the frames below that compiled frame match the bottom of the shadow stack exactly
 * (methods and call lines), and the compiled frame's own method is the next shadow frame (or
 * its call is under way). Only the frames inlined into the interrupted compiled method are
 * taken from the JVM rather than from the shadow stack. A PC in a stub (a copy loop a compiled
 * method calls as a leaf) is judged the same way at the stub's return address, the first word
 * within two words above the SP that returns into a compiled method, by the record at or after
 * it: a leaf call has no record of its own, and JDK 11's C2 lets the code it scheduled after the
 * call name that record (in the streams workload, TimSort.ensureCapacity's instead of the
 * String.substring that made the copy).
 *
 * <p>Anything else is a mismatch. A failed sample is one whose request was refused or whose event says failed.
 */
public final class OracleCheck {
    public enum Layer {
        JVMTI("a: JVMTI GetStackTrace"),
        BIASED("b: RequestStackTrace, ucontext NULL (JNI)"),
        SIGNAL("c: RequestStackTrace from a signal");

        public final String label;

        Layer(String label) {
            this.label = label;
        }
    }

    public enum Outcome { EXACT, TRANSITION, MISMATCH }

    /**
     * One frame of a stack trace: "class#name(descriptor)", line and bytecode index (-1: unknown),
     * its frame type (null when the source gives none) and whether its method is native.
     */
    public record Frame(String key, int line, int bci, String type, boolean nativeMethod) {
    }

    /**
     * A copy of a shadow stack; ids and lines bottom first. pc: the interrupted PC (layer (c));
     * codeSequence: how many compiled-code events had been recorded when it was taken.
     */
    /**
     * codeWords: layer (c)'s stack words that may be return addresses, from the interrupted SP
     * up, with their distance from it in words (codeWordIndexes); empty in other layers. On
     * aarch64 the interrupted link register (x30) comes first, as index -1, when it may be one:
     * a method's return address is there, not on the stack, before its prologue stores it.
     * codeWordsCut: a limit ended the scan before the stack's end.
     */
    public record Snapshot(long id, Layer layer, int tid, int tag, int rc, int flag, int popped, int overflow,
            long pc, long codeSequence, int[] ids, int[] lines, int[] codeWordIndexes, long[] codeWords,
            boolean codeWordsCut) {
    }

    /** Counts of one workload in one layer. */
    public static final class Tally {
        public int samples;
        public int exact;
        public int transition;
        public int instrumentation;
        /** Top frames as the JIT's debug information gives them for the PC (see the class comment). */
        public int jitScope;
        public int mismatched;
        public int failed;
        /** Of the failed: requests RequestStackTrace refused (a non-zero return code). */
        public int refused;
        /** Of the refused: THREAD_NOT_ALIVE, a signal that reached its thread after the thread's ThreadEnd. */
        public int refusedThreadEnded;
        public int skipped;
        public final List<String> examples = new ArrayList<>();
        public final FrameTypeCheck.Tally frameTypes = new FrameTypeCheck.Tally();
        /**
         * Layer (c): the failed and the mismatched requests by the walk that made them ("failed own",
         * "wrong asgct stub-caller-unknown", "failed refused rc=15"...; see {@link #attributeWalks}).
         */
        public final Map<String, Integer> byWalk = new TreeMap<>();
        /**
         * Of the failed, layer (c) with walker=vmstructs: threads starting or ending, which item 5
         * counts apart: the VMStructs walk unwound the native frames to the thread's first one without a
         * Java frame ("no-java-frame"), or the request was refused THREAD_NOT_ALIVE (the thread ended).
         */
        public int failedWithoutJavaFrames;
        /**
         * Layer (c): the failed requests by walk and by the code their signal's PC was in ("asgct
         * cut-short | compiled Foo.bar +1234 of 5688"), for finding where walks fail.
         */
        public final Map<String, Integer> failedAt = new TreeMap<>();
        /**
         * Layer (c), walker=vmstructs: the requests the VMStructs walk left to AsyncGetCallTrace and that
         * got a stack, keyed as {@link #failedAt}: where the VMStructs walk still needs the fallback.
         */
        public final Map<String, Integer> leftToAsgctAt = new TreeMap<>();
        /**
         * Layer (c): stacks whose signal PC is exactly the offset of a debug record, where the record at
         * or after the PC and the one strictly after it name different frames; and of those, the stacks
         * whose top frames are the first's (the record the instruction that just ran ends).
         */
        public int onRecordBoundary;
        public int onRecordBoundaryAtOrAfter;

        public int matched() {
            return exact + transition + instrumentation + jitScope;
        }

        /**
         * matched / (matched + mismatched), in percent: of the stack traces the sampler returned,
         * how many are right. Failed samples (the event says failed, or the request was refused)
         * are reported apart: they are no stack trace, not a wrong one.
         */
        public double matchPercent() {
            int traces = matched() + mismatched;
            return traces == 0 ? Double.NaN : 100.0 * matched() / traces;
        }

        void mismatch(String example) {
            mismatched++;
            if (examples.size() < 3) {
                examples.add(example);
            }
        }
    }

    private static final String INSTRUMENTATION = "in instrumentation";
    private static final String JIT_SCOPE = "JIT scope";
    private static final String SHADOW_PREFIX = ShadowStack.class.getName() + "#";
    private final Map<String, Integer> ids;
    private final Map<Integer, String> keys = new HashMap<>();
    private final Map<Layer, Map<String, Tally>> tallies = new LinkedHashMap<>();
    private final CompiledCode compiledCode;
    private final FrameTypeCheck frameTypes;
    private static final Pattern WALK_LINE =
            Pattern.compile("walk: user_data=(-?\\d+) walker=(\\w+) outcome=([\\w-]+) failed=[01]( stopped-in=\\S+)?");
    /** The walk of each request the walk log names; the others were made by {@link #defaultWalk}. */
    private final Map<Long, String> walks = new HashMap<>();
    /** The code the walk log names for a request (" stopped-in=..."), for the failed-at listing. */
    private final Map<Long, String> stoppedIn = new HashMap<>();
    private String defaultWalk = "asgct";
    private static final int THREAD_NOT_ALIVE = 15;

    private boolean ownWalker() {
        return defaultWalk.equals("vmstructs");
    }

    public OracleCheck(Path methodTable, CompiledCode compiledCode) {
        this(methodTable, compiledCode, false);
    }

    /** codeReplayed: liboracle.so was attached and learnt the code compiled before from a replay. */
    public OracleCheck(Path methodTable, CompiledCode compiledCode, boolean codeReplayed) {
        this.compiledCode = compiledCode;
        this.frameTypes = new FrameTypeCheck(compiledCode, codeReplayed);
        this.ids = new HashMap<>();
        try {
            for (String line : Files.readAllLines(methodTable)) {
                String[] parts = line.split("\t");
                ids.put(parts[1], Integer.parseInt(parts[0]));
                keys.put(Integer.parseInt(parts[0]), parts[1]);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Map<Layer, Map<String, Tally>> tallies() {
        return tallies;
    }

    private Tally tally(Layer layer, int tag) {
        String workload = tag >= 1 && tag <= OracleMain.ALL.size() ? OracleMain.ALL.get(tag - 1) : "(runner)";
        return tallies.computeIfAbsent(layer, l -> new LinkedHashMap<>()).computeIfAbsent(workload, w -> new Tally());
    }

    /**
     * walker=vmstructs: reads libstackreq.so's log=debug file, which names each request the VMStructs walk
     * left to AsyncGetCallTrace ("asgct" and why) or could not make whole ("vmstructs" and why); every
     * other request was walked by the VMStructs walk. Without this call every request is attributed to
     * AsyncGetCallTrace (walker=asgct).
     */
    public void attributeWalks(Path agentLog) {
        defaultWalk = "vmstructs";
        try {
            for (String line : Files.readAllLines(agentLog)) {
                Matcher m = WALK_LINE.matcher(line);
                if (m.find()) {
                    walks.put(Long.parseLong(m.group(1)), m.group(2) + " " + m.group(3));
                    if (m.group(4) != null) {
                        stoppedIn.put(Long.parseLong(m.group(1)), m.group(4));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Layers (b) and (c): each snapshot against the jdk.StackTraceRequest event of its user data. */
    public void checkRequests(Path snapshots, Path recording) {
        Map<Long, RecordedEvent> events = new HashMap<>();
        try (RecordingFile file = new RecordingFile(recording)) {
            while (file.hasMoreEvents()) {
                RecordedEvent event = file.readEvent();
                if (event.getEventType().getName().equals("jdk.StackTraceRequest")) {
                    events.put(event.getLong("userData"), event);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + recording, e);
        }
        for (Snapshot snapshot : readSnapshots(snapshots)) {
            Tally tally = tally(snapshot.layer(), snapshot.tag());
            if (snapshot.overflow() > 0) {
                tally.skipped++;
                continue;
            }
            tally.samples++;
            RecordedEvent event = events.get(snapshot.id());
            String walk = snapshot.layer() == Layer.SIGNAL ? walks.getOrDefault(snapshot.id(), defaultWalk) : null;
            int mismatchedBefore = tally.mismatched;
            int examplesBefore = tally.examples.size();
            if (snapshot.rc() != 0) {
                boolean threadEnded = snapshot.rc() == THREAD_NOT_ALIVE;
                tally.failed++;
                tally.refused++;
                tally.refusedThreadEnded += threadEnded ? 1 : 0;
                walk = "refused rc=" + snapshot.rc();
                tally.byWalk.merge("failed " + walk, 1, Integer::sum);
                tally.failedWithoutJavaFrames += threadEnded && ownWalker() ? 1 : 0;
            } else if (event == null) {
                tally.mismatch("no event for accepted request " + snapshot.id());
            } else if (event.getBoolean("failed")) {
                tally.failed++;
                if (walk != null) {
                    tally.byWalk.merge("failed " + walk, 1, Integer::sum);
                    tally.failedAt.merge(where(walk, snapshot), 1, Integer::sum);
                    tally.failedWithoutJavaFrames += walk.equals("asgct no-java-frame") ? 1 : 0;
                }
            } else if (event.getBoolean("biased") != (snapshot.layer() == Layer.BIASED)) {
                tally.mismatch("request " + snapshot.id() + ": biased=" + event.getBoolean("biased"));
            } else {
                List<Frame> frames = framesOf(event);
                record(tally, frames, snapshot);
                if (snapshot.layer() == Layer.SIGNAL) {
                    List<List<CompiledCode.Scope>> scopes = compiledCode.scopesAt(snapshot.pc(), snapshot.codeSequence());
                    if (scopes.size() == 2) {
                        tally.onRecordBoundary++;
                        boolean atOrAfter = frames.size() >= scopes.get(1).size() && startsWith(frames, scopes.get(1));
                        tally.onRecordBoundaryAtOrAfter += atOrAfter ? 1 : 0;
                    }
                }
                frameTypes.check(frames, snapshot, tally.frameTypes);
                if (ownWalker() && walk != null && walk.startsWith("asgct ")) {
                    tally.leftToAsgctAt.merge(where(walk, snapshot), 1, Integer::sum);
                }
            }
            if (walk != null && tally.mismatched > mismatchedBefore) {
                tally.byWalk.merge("wrong " + walk, 1, Integer::sum);
                if (tally.examples.size() > examplesBefore) {
                    int last = tally.examples.size() - 1;
                    tally.examples.set(last, "[walk: " + walk + "] " + tally.examples.get(last));
                }
            }
        }
    }

    /** "walk | the code at the signal's PC | where the walk stopped", for the failed-at listings. */
    private String where(String walk, Snapshot snapshot) {
        return walk + " | " + compiledCode.describe(snapshot.pc(), snapshot.codeSequence())
                .replaceAll("^0x\\p{XDigit}+ ", "") + stoppedIn.getOrDefault(snapshot.id(), "");
    }

    /** Layer (a): the JVMTI records liboracle.so wrote. */
    public void checkJvmti(Path records) {
        try {
            for (String line : Files.readAllLines(records)) {
                int bar = line.indexOf(" |");
                String[] head = line.substring(0, bar).split(" ");
                int depth = Integer.parseInt(head[6]);
                int[][] frames = shadowFrames(head, 7, depth);
                Snapshot snapshot = new Snapshot(0, Layer.JVMTI, Integer.parseInt(head[1]), Integer.parseInt(head[2]),
                        0, Integer.parseInt(head[3]), Integer.parseInt(head[4]), Integer.parseInt(head[5]), 0, 0,
                        frames[0], frames[1], new int[0], new long[0], false);
                Tally tally = tally(Layer.JVMTI, snapshot.tag());
                if (snapshot.overflow() > 0) {
                    tally.skipped++;
                    continue;
                }
                tally.samples++;
                String tail = line.substring(bar + 2).trim();
                if (tail.startsWith("!error")) {
                    tally.failed++;
                    continue;
                }
                List<Frame> topFirst = new ArrayList<>();
                for (String text : tail.isEmpty() ? new String[0] : tail.split(" ")) {
                    int at = text.lastIndexOf('@');
                    topFirst.add(new Frame(text.substring(0, at), Integer.parseInt(text.substring(at + 1)), -1, null,
                            false));
                }
                record(tally, topFirst, snapshot);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void record(Tally tally, List<Frame> topFirst, Snapshot snapshot) {
        String why = compare(topFirst, snapshot);
        if (why == null) {
            tally.exact++;
        } else if (why.isEmpty()) {
            tally.transition++;
        } else if (why.equals(INSTRUMENTATION)) {
            tally.instrumentation++;
        } else if (why.equals(JIT_SCOPE)) {
            tally.jitScope++;
        } else {
            tally.mismatch(why);
        }
    }

    /** null: exact match; "": accepted transition; INSTRUMENTATION; JIT_SCOPE; otherwise why it does not match. */
    String compare(List<Frame> topFirst, Snapshot snapshot) {
        List<int[]> woven = wovenFrames(topFirst, 0);
        int depth = snapshot.ids().length;
        boolean inShadowCode = false;
        for (Frame frame : topFirst) {
            if (frame.key().startsWith(SHADOW_PREFIX)) {
                inShadowCode = true;
            }
            if (inShadowCode || ids.containsKey(frame.key())) {
                break;
            }
        }
        boolean ahead = woven.size() == depth + 1 && (snapshot.flag() == ShadowStack.CALLING
                || woven.get(depth)[1] == -1
                || snapshot.flag() == ShadowStack.EXITING && woven.get(depth)[0] == snapshot.popped());
        boolean transition = ahead || inShadowCode;
        // Compared: methods of the common part, and lines below the trace's top woven frame.
        int common = Math.min(woven.size(), depth);
        boolean same = woven.size() == depth || transition;
        for (int i = 0; same && i < common; i++) {
            // Inside the instrumentation the shadow's own top frame is a top frame too: its line
            // is the last call it recorded, and the sample's scope is only approximate there.
            boolean top = i == woven.size() - 1 || inShadowCode && i == depth - 1;
            same = woven.get(i)[0] == snapshot.ids()[i] && (top || woven.get(i)[1] == snapshot.lines()[i]);
        }
        if (same) {
            return woven.size() == depth && !ahead ? null : inShadowCode && !ahead ? INSTRUMENTATION : "";
        }
        if (snapshot.layer() == Layer.SIGNAL && inJitScope(topFirst, snapshot)) {
            return JIT_SCOPE;
        }
        return describe(topFirst, snapshot, woven);
    }

    /** The woven frames of topFirst from index fromTop down, bottom first: (method id, line). */
    private List<int[]> wovenFrames(List<Frame> topFirst, int fromTop) {
        List<int[]> woven = new ArrayList<>();
        for (int i = topFirst.size() - 1; i >= fromTop; i--) {
            Integer id = ids.get(topFirst.get(i).key());
            if (id != null) {
                woven.add(new int[] {id, topFirst.get(i).line()});
            }
        }
        return woven;
    }

    /** The "JIT scope" rule of the class comment. */
    private boolean inJitScope(List<Frame> topFirst, Snapshot snapshot) {
        int depth = snapshot.ids().length;
        List<List<CompiledCode.Scope>> scopes = compiledCode.scopesAt(snapshot.pc(), snapshot.codeSequence());
        if (compiledCode.inStub(snapshot.pc())) {
            List<CompiledCode.Scope> caller = stubCallerScope(snapshot);
            if (caller != null) {
                scopes.add(caller);
            }
        }
        for (List<CompiledCode.Scope> scope : scopes) {
            int inlined = scope.size();
            if (topFirst.size() < inlined || !startsWith(topFirst, scope)) {
                continue;
            }
            List<int[]> below = wovenFrames(topFirst, inlined);
            boolean same = below.size() <= depth;
            for (int i = 0; same && i < below.size(); i++) {
                same = below.get(i)[0] == snapshot.ids()[i] && below.get(i)[1] == snapshot.lines()[i];
            }
            Integer root = ids.get(scope.get(inlined - 1).key());
            boolean rootInPlace = root == null
                    || depth > below.size() && snapshot.ids()[below.size()] == root
                    || depth == below.size() && snapshot.flag() == ShadowStack.CALLING;
            if (same && rootInPlace) {
                return true;
            }
        }
        return false;
    }

    /** The scope of the return address of a stub the PC is in (the class comment), or null. */
    private List<CompiledCode.Scope> stubCallerScope(Snapshot snapshot) {
        for (int w = 0; w < snapshot.codeWords().length && snapshot.codeWordIndexes()[w] <= 2; w++) {
            if (snapshot.codeWordIndexes()[w] < 0) {
                continue;
            }
            List<CompiledCode.Scope> scope = compiledCode.scopeAtReturnAddress(snapshot.codeWords()[w],
                    snapshot.codeSequence());
            if (scope != null) {
                return scope;
            }
        }
        return null;
    }

    static boolean startsWith(List<Frame> topFirst, List<CompiledCode.Scope> scope) {
        for (int i = 0; i < scope.size(); i++) {
            Frame frame = topFirst.get(i);
            if (!frame.key().equals(scope.get(i).key()) || frame.bci() != scope.get(i).bci()) {
                return false;
            }
        }
        return true;
    }

    private String describe(List<Frame> topFirst, Snapshot snapshot, List<int[]> woven) {
        return "request " + snapshot.id() + " tid " + snapshot.tid() + " flag " + snapshot.flag() + " popped "
                + name(snapshot.popped())
                + (snapshot.layer() == Layer.SIGNAL ? " pc in " + compiledCode.describe(snapshot.pc(),
                        snapshot.codeSequence()) : "") + "\n      shadow (bottom first): " + describeShadow(snapshot)
                + "\n      trace, woven frames (bottom first): " + describeWoven(woven)
                + "\n      trace, top frames: " + describeTop(topFirst);
    }

    private static String describeTop(List<Frame> topFirst) {
        List<String> parts = new ArrayList<>();
        for (Frame frame : topFirst.subList(0, Math.min(4, topFirst.size()))) {
            String key = frame.key();
            int paren = key.indexOf('(');
            parts.add((paren > 0 ? key.substring(key.lastIndexOf('.', key.indexOf('#')) + 1, paren) : key) + ":"
                    + frame.line());
        }
        return String.join(" <- ", parts) + (topFirst.size() > 4 ? " <- ... (" + topFirst.size() + " frames)" : "");
    }

    private String name(int id) {
        String key = keys.get(id);
        if (key == null) {
            return "#" + id;
        }
        int hash = key.indexOf('#');
        int paren = key.indexOf('(');
        String simple = key.substring(key.lastIndexOf('.', hash) + 1, hash);
        return simple + "." + key.substring(hash + 1, paren);
    }

    private String describeShadow(Snapshot snapshot) {
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < snapshot.ids().length; i++) {
            parts.add(name(snapshot.ids()[i]) + ":" + snapshot.lines()[i]);
        }
        return abbreviate(parts);
    }

    private String describeWoven(List<int[]> woven) {
        List<String> parts = new ArrayList<>();
        for (int[] frame : woven) {
            parts.add(name(frame[0]) + ":" + frame[1]);
        }
        return abbreviate(parts);
    }

    /** Long (recursive) stacks: the bottom 3 and the top 6 frames. */
    private static String abbreviate(List<String> parts) {
        if (parts.size() <= 10) {
            return String.join(" ", parts);
        }
        return String.join(" ", parts.subList(0, 3)) + " ...(" + (parts.size() - 9) + ")... "
                + String.join(" ", parts.subList(parts.size() - 6, parts.size()));
    }

    static List<Frame> framesOf(RecordedEvent event) {
        List<Frame> frames = new ArrayList<>();
        RecordedStackTrace stack = event.getStackTrace();
        if (stack == null) {
            return frames;
        }
        for (RecordedFrame frame : stack.getFrames()) {
            RecordedMethod method = frame.getMethod();
            if (method == null || method.getType() == null) {
                frames.add(new Frame("?", -1, -1, frame.getType(), false));
            } else {
                frames.add(new Frame(method.getType().getName().replace('/', '.') + "#" + method.getName()
                        + method.getDescriptor(), frame.getLineNumber(), frame.getBytecodeIndex(), frame.getType(),
                        Modifier.isNative(method.getModifiers())));
            }
        }
        return frames;
    }

    /**
     * Lines "S id layer tid tag rc flag popped overflow pc(hex) code-sequence depth id:line ... R index:word(hex) ..."
     * of oracle.c.
     */
    static List<Snapshot> readSnapshots(Path file) {
        List<Snapshot> snapshots = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(file)) {
                if (!line.startsWith("S ")) {
                    continue;
                }
                String[] f = line.split(" ");
                int depth = Integer.parseInt(f[11]);
                int[][] frames = shadowFrames(f, 12, depth);
                boolean wordsCut = f.length > 12 + depth && f[12 + depth].equals("R+");
                int wordsAt = 12 + depth + 1;
                int wordCount = Math.max(0, f.length - wordsAt);
                int[] wordIndexes = new int[wordCount];
                long[] words = new long[wordCount];
                for (int i = 0; i < wordCount; i++) {
                    String[] pair = f[wordsAt + i].split(":");
                    wordIndexes[i] = Integer.parseInt(pair[0]);
                    words[i] = Long.parseUnsignedLong(pair[1], 16);
                }
                Layer layer = f[2].equals("b") ? Layer.BIASED : Layer.SIGNAL;
                snapshots.add(new Snapshot(Long.parseLong(f[1]), layer, Integer.parseInt(f[3]), Integer.parseInt(f[4]),
                        Integer.parseInt(f[5]), Integer.parseInt(f[6]), Integer.parseInt(f[7]), Integer.parseInt(f[8]),
                        Long.parseUnsignedLong(f[9], 16), Long.parseLong(f[10]), frames[0], frames[1], wordIndexes,
                        words, wordsCut));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return snapshots;
    }

    private static int[][] shadowFrames(String[] fields, int first, int depth) {
        int[] ids = new int[depth];
        int[] lines = new int[depth];
        for (int i = 0; i < depth; i++) {
            String[] pair = fields[first + i].split(":");
            ids[i] = Integer.parseInt(pair[0]);
            lines[i] = Integer.parseInt(pair[1]);
        }
        return new int[][] {ids, lines};
    }
}
