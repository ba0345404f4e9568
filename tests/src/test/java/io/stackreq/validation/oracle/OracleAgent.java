package io.stackreq.validation.oracle;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodTooLargeException;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * The oracle's Java agent ({@code -javaagent:oracle-agent.jar=<method-table-file>}): weaves every
 * method of the classes under {@link #PACKAGE} (the validation workloads, including classes they
 * generate at run time), and of a real application's own packages named by {@link #WEAVE_PROPERTY},
 * so that it keeps its thread's {@link ShadowStack}:
 *
 * <pre>
 *   ShadowStack.enter(id)                      first instruction
 *   ShadowStack.call(line) / invoke / returned()   around every call instruction
 *   ShadowStack.at(line)                       before new, getstatic, putstatic (they may run a static initializer)
 *   ShadowStack.returned()                     first instruction of every exception handler
 *   ShadowStack.exit(id)                       before every return
 *   catch-all handler: exit(id); athrow        the method ends with an exception
 * </pre>
 *
 * Constructors, static initializers and synthetic methods (lambda bodies, bridges) are not woven:
 * they are not on the shadow stack, and the comparison skips their frames like any other frame
 * of uninstrumented code. Each woven method gets an id, one per "class#name(descriptor)" (a class
 * defined again by another loader keeps its ids); the table goes to the file named by the agent
 * argument as {@code id<TAB>class#name(descriptor)} lines. A method that would grow past the class
 * file's 64 KiB limit is left unwoven (counted in {@link #TOO_LARGE}); so are classes of the boot
 * and platform class loaders, which cannot see {@link ShadowStack}. A named module whose packages
 * are woven (javac's {@code jdk.compiler}) is made to read the class path's unnamed module.
 */
public final class OracleAgent {
    public static final String PACKAGE = "io/stackreq/validation/oracle/workload/";
    /** System property: more packages to weave, as comma-separated prefixes of class names ("org.h2."). */
    public static final String WEAVE_PROPERTY = "stackreq.oracle.weave";
    private static final List<String> PREFIXES = new ArrayList<>(List.of(PACKAGE));
    private static final String SHADOW = ShadowStack.class.getName().replace('.', '/');
    private static final String NATIVE = OracleNative.class.getName().replace('.', '/');

    private static final Map<String, Integer> IDS = new HashMap<>();
    private static Writer table;
    /** Classes that could not be woven (printed to stderr). */
    public static final AtomicInteger FAILURES = new AtomicInteger();
    public static final AtomicInteger WOVEN_CLASSES = new AtomicInteger();
    /** Methods left unwoven because weaving would make them too large for a class file. */
    public static final AtomicInteger TOO_LARGE = new AtomicInteger();

    private OracleAgent() {
    }

    public static void premain(String tableFile, Instrumentation instrumentation) throws IOException {
        table = Files.newBufferedWriter(Path.of(tableFile), StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
        for (String prefix : System.getProperty(WEAVE_PROPERTY, "").split(",")) {
            if (!prefix.isBlank()) {
                PREFIXES.add(prefix.trim().replace('.', '/'));
            }
        }
        Module classPath = OracleAgent.class.getModule();
        for (Module module : ModuleLayer.boot().modules()) {
            boolean woven = module.getPackages().stream()
                    .anyMatch(p -> PREFIXES.stream().anyMatch(prefix -> (p.replace('.', '/') + "/").startsWith(prefix)));
            if (woven) {
                instrumentation.redefineModule(module, Set.of(classPath), Map.of(), Map.of(), Set.of(), Map.of());
            }
        }
        instrumentation.addTransformer(new Weaver());
    }

    private static boolean woven(ClassLoader loader, String className) {
        if (loader == null || loader == ClassLoader.getPlatformClassLoader()) {
            return false;
        }
        for (String prefix : PREFIXES) {
            if (className.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    static synchronized int idOf(String key) {
        Integer id = IDS.get(key);
        if (id == null) {
            id = IDS.size() + 1;
            IDS.put(key, id);
            try {
                table.write(id + "\t" + key + "\n");
                table.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return id;
    }

    private static final class Weaver implements ClassFileTransformer {
        @Override
        public byte[] transform(ClassLoader loader, String className, Class<?> redefined, ProtectionDomain domain,
                byte[] bytes) {
            if (className == null || redefined != null || !woven(loader, className)) {
                return null;
            }
            try {
                Set<String> unwoven = new HashSet<>();
                while (true) {
                    ClassReader reader = new ClassReader(bytes);
                    ClassWriter writer = new HierarchyWriter(loader);
                    reader.accept(new ClassWeaver(writer, className, unwoven), ClassReader.SKIP_FRAMES);
                    try {
                        byte[] woven = writer.toByteArray();
                        WOVEN_CLASSES.incrementAndGet();
                        return woven;
                    } catch (MethodTooLargeException e) {
                        if (!unwoven.add(e.getMethodName() + e.getDescriptor())) {
                            throw e;
                        }
                        TOO_LARGE.incrementAndGet();
                    }
                }
            } catch (Throwable t) {
                FAILURES.incrementAndGet();
                System.err.println("oracle: cannot weave " + className + ": " + t);
                t.printStackTrace();
                return null;
            }
        }
    }

    private static final class ClassWeaver extends ClassVisitor {
        private final String className;
        private final Set<String> unwoven;

        ClassWeaver(ClassVisitor next, String className, Set<String> unwoven) {
            super(Opcodes.ASM9, next);
            this.className = className;
            this.unwoven = unwoven;
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                String[] exceptions) {
            MethodVisitor next = super.visitMethod(access, name, descriptor, signature, exceptions);
            int skipped = Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE | Opcodes.ACC_SYNTHETIC | Opcodes.ACC_BRIDGE;
            if ((access & skipped) != 0 || name.startsWith("<") || unwoven.contains(name + descriptor)) {
                return next;
            }
            int id = idOf(className.replace('/', '.') + "#" + name + descriptor);
            return new MethodWeaver(next, id);
        }
    }

    private static final class MethodWeaver extends MethodVisitor {
        private final int id;
        private final Label start = new Label();
        private final Label end = new Label();
        private final Label catchAll = new Label();
        private final Set<Label> handlers = new HashSet<>();
        private int line = -1;

        MethodWeaver(MethodVisitor next, int id) {
            super(Opcodes.ASM9, next);
            this.id = id;
        }

        @Override
        public void visitCode() {
            super.visitCode();
            push(id);
            super.visitMethodInsn(Opcodes.INVOKESTATIC, SHADOW, "enter", "(I)V", false);
            super.visitLabel(start);
        }

        @Override
        public void visitTryCatchBlock(Label from, Label to, Label handler, String type) {
            handlers.add(handler);
            super.visitTryCatchBlock(from, to, handler, type);
        }

        @Override
        public void visitLabel(Label label) {
            super.visitLabel(label);
            if (handlers.contains(label)) {
                super.visitMethodInsn(Opcodes.INVOKESTATIC, SHADOW, "returned", "()V", false);
            }
        }

        @Override
        public void visitLineNumber(int number, Label at) {
            line = number;
            super.visitLineNumber(number, at);
        }

        @Override
        public void visitMethodInsn(int opcode, String owner, String name, String descriptor, boolean isInterface) {
            if (owner.equals(SHADOW) || owner.equals(NATIVE)) {
                super.visitMethodInsn(opcode, owner, name, descriptor, isInterface);
                return;
            }
            beforeCall();
            super.visitMethodInsn(opcode, owner, name, descriptor, isInterface);
            afterCall();
        }

        @Override
        public void visitInvokeDynamicInsn(String name, String descriptor, Handle bootstrap, Object... arguments) {
            beforeCall();
            super.visitInvokeDynamicInsn(name, descriptor, bootstrap, arguments);
            afterCall();
        }

        @Override
        public void visitTypeInsn(int opcode, String type) {
            if (opcode == Opcodes.NEW) {
                atLine();
            }
            super.visitTypeInsn(opcode, type);
        }

        @Override
        public void visitFieldInsn(int opcode, String owner, String name, String descriptor) {
            if (opcode == Opcodes.GETSTATIC || opcode == Opcodes.PUTSTATIC) {
                atLine();
            }
            super.visitFieldInsn(opcode, owner, name, descriptor);
        }

        private void atLine() {
            push(line);
            super.visitMethodInsn(Opcodes.INVOKESTATIC, SHADOW, "at", "(I)V", false);
        }

        private void beforeCall() {
            push(line);
            super.visitMethodInsn(Opcodes.INVOKESTATIC, SHADOW, "call", "(I)V", false);
        }

        private void afterCall() {
            super.visitMethodInsn(Opcodes.INVOKESTATIC, SHADOW, "returned", "()V", false);
        }

        @Override
        public void visitInsn(int opcode) {
            if (opcode >= Opcodes.IRETURN && opcode <= Opcodes.RETURN) {
                push(id);
                super.visitMethodInsn(Opcodes.INVOKESTATIC, SHADOW, "exit", "(I)V", false);
            }
            super.visitInsn(opcode);
        }

        @Override
        public void visitMaxs(int maxStack, int maxLocals) {
            // Last in the exception table, so the method's own handlers come first.
            super.visitLabel(end);
            super.visitTryCatchBlock(start, end, catchAll, null);
            super.visitLabel(catchAll);
            push(id);
            super.visitMethodInsn(Opcodes.INVOKESTATIC, SHADOW, "exit", "(I)V", false);
            super.visitInsn(Opcodes.ATHROW);
            super.visitMaxs(maxStack, maxLocals);
        }

        private void push(int value) {
            super.visitLdcInsn(value);
        }
    }

    /**
     * COMPUTE_FRAMES needs common superclasses; they are read from class files through the
     * defining loader (loading classes from a transformer could recurse), and any type it cannot
     * find merges to Object.
     */
    private static final class HierarchyWriter extends ClassWriter {
        private final ClassLoader loader;

        HierarchyWriter(ClassLoader loader) {
            super(ClassWriter.COMPUTE_FRAMES);
            this.loader = loader;
        }

        @Override
        protected String getCommonSuperClass(String first, String second) {
            List<String> firstChain = superclasses(first);
            Set<String> secondChain = new HashSet<>(superclasses(second));
            for (String type : firstChain) {
                if (secondChain.contains(type)) {
                    return type;
                }
            }
            return "java/lang/Object";
        }

        /** type, its superclass, ..., java/lang/Object; just Object for interfaces. */
        private List<String> superclasses(String type) {
            List<String> chain = new ArrayList<>();
            String current = type;
            while (current != null) {
                ClassReader reader = read(current);
                if (reader == null || (reader.getAccess() & Opcodes.ACC_INTERFACE) != 0) {
                    break;
                }
                chain.add(current);
                current = reader.getSuperName();
            }
            chain.add("java/lang/Object");
            return chain;
        }

        private ClassReader read(String type) {
            String resource = type + ".class";
            try (InputStream in = loader != null ? loader.getResourceAsStream(resource)
                    : ClassLoader.getSystemResourceAsStream(resource)) {
                return in == null ? null : new ClassReader(in);
            } catch (IOException e) {
                return null;
            }
        }
    }
}
