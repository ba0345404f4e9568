package io.stackreq.validation.oracle;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The JIT's debug information of one run, as liboracle.so recorded it from JVMTI
 * CompiledMethodLoad (compiled-code.txt, format in compiled_code.c): which compiled method
 * holds a PC, and which inlined scopes the JVM attributes to it.
 */
public final class CompiledCode {
    /** One scope of a PC's inline stack: "class#name(descriptor)" and bytecode index. */
    public record Scope(String key, int bci) {
    }

    /** A compiled method's code, valid from its load to its unload (event sequence numbers). */
    static final class Method {
        final String name;
        final long start;
        final int size;
        final long loaded;
        long unloaded = Long.MAX_VALUE;
        /** Recorded PC -> its inline stack, innermost first. */
        final TreeMap<Long, List<Scope>> scopes = new TreeMap<>();

        Method(String name, long start, int size, long loaded) {
            this.name = name;
            this.start = start;
            this.size = size;
            this.loaded = loaded;
        }

        boolean contains(long pc) {
            return pc >= start && pc < start + size;
        }

        /** The inline stack (innermost first) of the first recorded PC at or after pc, or null. */
        List<Scope> scopeFrom(long pc) {
            Map.Entry<Long, List<Scope>> entry = scopes.ceilingEntry(pc);
            return entry == null ? null : entry.getValue();
        }
    }

    /** VM-generated code: start, size and name. */
    private record Generated(long start, int size, String name) {
    }

    private final TreeMap<Long, List<Method>> byStart;
    private final int maxSize;
    private final TreeMap<Long, Generated> generated;

    private CompiledCode(TreeMap<Long, List<Method>> byStart, int maxSize, TreeMap<Long, Generated> generated) {
        this.byStart = byStart;
        this.maxSize = maxSize;
        this.generated = generated;
    }

    /** An empty table: no PC is in compiled code. */
    public static CompiledCode none() {
        return new CompiledCode(new TreeMap<>(), 0, new TreeMap<>());
    }

    public static CompiledCode read(Path file) {
        if (!Files.exists(file)) {
            return none();
        }
        Map<Long, String> keys = new HashMap<>();
        Map<Long, Method> live = new HashMap<>();
        TreeMap<Long, List<Method>> byStart = new TreeMap<>();
        TreeMap<Long, Generated> generated = new TreeMap<>();
        int maxSize = 0;
        Method current = null;
        try (BufferedReader in = Files.newBufferedReader(file)) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                String[] f = line.split(" ");
                switch (f[0]) {
                    case "D" -> generated.put(Long.parseUnsignedLong(f[1], 16),
                            new Generated(Long.parseUnsignedLong(f[1], 16), Integer.parseInt(f[2]), f[3]));
                    case "M" -> keys.put(Long.parseUnsignedLong(f[1], 16), f[2]);
                    case "L" -> {
                        String key = keys.getOrDefault(Long.parseUnsignedLong(f[4], 16), "?");
                        long start = Long.parseUnsignedLong(f[2], 16);
                        int size = Integer.parseInt(f[3]);
                        Method known = live.get(start);
                        if (known != null && known.name.equals(key) && known.size == size) {
                            // liboracle.so's replay at its end repeats the code it already knew:
                            // loaded when it was first reported, not again.
                            current = known;
                        } else {
                            current = new Method(key, start, size, Long.parseLong(f[1]));
                            live.put(current.start, current);
                            byStart.computeIfAbsent(current.start, s -> new ArrayList<>()).add(current);
                            maxSize = Math.max(maxSize, current.size);
                        }
                    }
                    case "P" -> {
                        List<Scope> stack = new ArrayList<>();
                        for (int i = 2; i < f.length; i++) {
                            int colon = f[i].indexOf(':');
                            stack.add(new Scope(keys.getOrDefault(Long.parseUnsignedLong(f[i].substring(0, colon), 16),
                                    "?"), Integer.parseInt(f[i].substring(colon + 1))));
                        }
                        current.scopes.put(Long.parseUnsignedLong(f[1], 16), List.copyOf(stack));
                    }
                    case "U" -> {
                        Method unloaded = live.remove(Long.parseUnsignedLong(f[2], 16));
                        if (unloaded != null) {
                            unloaded.unloaded = Long.parseLong(f[1]);
                        }
                    }
                    default -> throw new IllegalStateException("unexpected line in " + file + ": " + line);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new CompiledCode(byStart, maxSize, generated);
    }

    /**
     * The compiled method whose code held pc when the signal came (after sequence events): the
     * one loaded last before it and not unloaded since; else (load events are posted after the
     * code is installed) the first one loaded after it.
     */
    Method methodAt(long pc, long sequence) {
        Method best = null;
        Method later = null;
        for (List<Method> methods : byStart.subMap(pc - maxSize, false, pc, true).values()) {
            for (Method method : methods) {
                if (!method.contains(pc)) {
                    continue;
                }
                if (method.loaded <= sequence && method.unloaded > sequence) {
                    if (best == null || method.loaded > best.loaded) {
                        best = method;
                    }
                } else if (method.loaded > sequence && (later == null || method.loaded < later.loaded)) {
                    later = method;
                }
            }
        }
        return best != null ? best : later;
    }

    /**
     * Whether the compiled method holding pc when the signal came (after sequence events) had
     * been reported by then; false when its CompiledMethodLoad came after the signal.
     */
    public boolean reportedAt(long pc, long sequence) {
        Method method = methodAt(pc, sequence);
        return method != null && method.loaded <= sequence;
    }

    /**
     * The inline stack (innermost first) recorded at exactly pc in the compiled method holding
     * it after sequence events: a call's return address has a record of its own. Null when none.
     */
    public List<Scope> scopeRecordedAt(long pc, long sequence) {
        Method method = methodAt(pc, sequence);
        return method == null ? null : method.scopes.get(pc);
    }

    /**
     * Whether the JVM had reported, after sequence events, the code holding pc: a compiled method
     * or VM-generated code.
     */
    public boolean reported(long pc, long sequence) {
        return methodAt(pc, sequence) != null || generatedAt(pc) != null;
    }

    /**
     * Whether a compiled method the JVM reported only after sequence events records an inline
     * stack (innermost first) that frames are exactly, methods and bytecode indexes: a return
     * address into it lay outside the code liboracle.so knew of when the signal came, so no stack
     * word was kept for it.
     */
    public boolean reportedLaterWith(List<OracleCheck.Frame> frames, long sequence) {
        for (List<Method> methods : byStart.values()) {
            for (Method method : methods) {
                if (method.loaded <= sequence) {
                    continue;
                }
                for (List<Scope> scope : method.scopes.values()) {
                    if (scope.size() == frames.size() && OracleCheck.startsWith(frames, scope)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * The inline stack (innermost first) the JVM attributes to a return address into a compiled
     * method: the first record at or after it (a Java call's own; for a leaf call, which has none,
     * the next one). Null when the return address is in no compiled method.
     */
    public List<Scope> scopeAtReturnAddress(long returnAddress, long sequence) {
        Method method = methodAt(returnAddress, sequence);
        return method == null ? null : method.scopeFrom(returnAddress);
    }

    /** Whether pc is in VM-generated code other than the interpreter (a stub, an adapter). */
    public boolean inStub(long pc) {
        Generated code = generatedAt(pc);
        return code != null && !code.name().equals("Interpreter");
    }

    /** Whether pc is in the interpreter's code (DynamicCodeGenerated "Interpreter"). */
    public boolean inInterpreter(long pc) {
        Generated code = generatedAt(pc);
        return code != null && code.name().equals("Interpreter");
    }

    /** The VM-generated code holding pc, or null. */
    private Generated generatedAt(long pc) {
        Map.Entry<Long, Generated> entry = generated.floorEntry(pc);
        return entry != null && pc < entry.getValue().start() + entry.getValue().size() ? entry.getValue() : null;
    }

    /** Where pc is, for mismatch reports: a compiled method or VM code, and the offset in it. */
    public String describe(long pc, long sequence) {
        Method method = methodAt(pc, sequence);
        if (method != null) {
            return String.format("compiled %s +%d of %d", method.name, pc - method.start, method.size);
        }
        Generated code = generatedAt(pc);
        if (code != null) {
            return String.format("%s +%d of %d", code.name(), pc - code.start(), code.size());
        }
        return String.format("0x%x (not in code the JVM reported)", pc);
    }

    /**
     * The inline stacks (innermost first) the JVM attributes to an interrupted pc: AsyncGetCallTrace
     * takes the first debug record strictly after pc (the instruction about to run), a walk from
     * pc - 1 the first at or after pc (the instruction that just ran). Empty when pc is not in
     * compiled code.
     */
    public List<List<Scope>> scopesAt(long pc, long sequence) {
        Method method = methodAt(pc, sequence);
        List<List<Scope>> result = new ArrayList<>();
        if (method == null) {
            return result;
        }
        List<Scope> next = method.scopeFrom(pc + 1);
        List<Scope> at = method.scopeFrom(pc);
        if (next != null) {
            result.add(next);
        }
        if (at != null && !at.equals(next)) {
            result.add(at);
        }
        return result;
    }
}
