package io.stackreq.validation.bias;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * The hot line of each bias workload, read from the compiled {@link BiasWorkloads} class file (its
 * line-number table), so the benchmark never carries a line number that could drift from the
 * source:
 * <ul>
 * <li>{@code arraycopy}: the line of the {@code System.arraycopy} call in {@code copyPhase};</li>
 * <li>{@code inlined}: the (only) line of {@code mix};</li>
 * <li>{@code counted}: the line of the array load in {@code countedPhase};</li>
 * <li>{@code jni}: the line of the {@code nativeBurn} call in {@code jniPhase}.</li>
 * <li>{@code chase}: the (only) line of {@code next}.</li>
 * </ul>
 */
public final class HotLines {
    /** A line of a method of {@link BiasWorkloads}. */
    public record HotLine(String method, int line) {
        @Override
        public String toString() {
            return method + ":" + line;
        }
    }

    private HotLines() {
    }

    public static Map<String, HotLine> read() {
        String resource = "/" + BiasWorkloads.class.getName().replace('.', '/') + ".class";
        try (InputStream in = BiasWorkloads.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("class file not found: " + resource);
            }
            Map<String, HotLine> lines = new HashMap<>();
            new ClassReader(in).accept(new ClassVisitor(Opcodes.ASM9) {
                @Override
                public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                        String[] exceptions) {
                    return new Finder(name, lines);
                }
            }, 0);
            for (String workload : BiasWorkloads.ALL) {
                if (!lines.containsKey(workload)) {
                    throw new IllegalStateException("no hot line found for " + workload + ": " + lines);
                }
            }
            return Map.copyOf(lines);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static final class Finder extends MethodVisitor {
        private final String method;
        private final Map<String, HotLine> found;
        private int line = -1;

        Finder(String method, Map<String, HotLine> found) {
            super(Opcodes.ASM9);
            this.method = method;
            this.found = found;
        }

        @Override
        public void visitLineNumber(int number, Label start) {
            line = number;
            if (method.equals("mix")) {
                found.putIfAbsent("inlined", new HotLine(method, number));
            }
            if (method.equals("next")) {
                found.putIfAbsent("chase", new HotLine(method, number));
            }
        }

        @Override
        public void visitMethodInsn(int opcode, String owner, String name, String descriptor, boolean isInterface) {
            if (method.equals("copyPhase") && owner.equals("java/lang/System") && name.equals("arraycopy")) {
                found.putIfAbsent("arraycopy", new HotLine(method, line));
            }
            if (method.equals("jniPhase") && name.equals(BiasWorkloads.NATIVE_METHOD)) {
                found.putIfAbsent("jni", new HotLine(method, line));
            }
        }

        @Override
        public void visitInsn(int opcode) {
            if (method.equals("countedPhase") && opcode == Opcodes.IALOAD) {
                found.putIfAbsent("counted", new HotLine(method, line));
            }
        }
    }
}
