package io.stackreq.validation.oracle.workload;

import java.lang.reflect.Method;

import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Classes defined while the thread is sampled: every round a new loader defines 20 classes
 * {@code ...workload.gen.G<i>} (woven as they are defined) whose {@code run(int)} calls
 * {@link #leaf} twice, and calls each once; older loaders become garbage.
 */
public final class ClassLoading {
    static long sink;
    private static final String OWNER = ClassLoading.class.getName().replace('.', '/');

    private ClassLoading() {
    }

    public static void round() throws Exception {
        Loader loader = new Loader();
        for (int i = 0; i < 20; i++) {
            Class<?> generated = loader.define("io.stackreq.validation.oracle.workload.gen.G" + i);
            Method run = generated.getMethod("run", int.class);
            sink += (Long) run.invoke(null, i);
        }
    }

    public static long leaf(int x) {
        long acc = x;
        for (int i = 0; i < 30_000; i++) {
            acc = acc * 31 + i;
        }
        return acc;
    }

    static byte[] generate(String name) {
        String internal = name.replace('.', '/');
        ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_MAXS);
        writer.visit(Opcodes.V11, Opcodes.ACC_PUBLIC | Opcodes.ACC_FINAL, internal, null, "java/lang/Object", null);
        writer.visitSource(internal.substring(internal.lastIndexOf('/') + 1) + ".java", null);
        MethodVisitor run = writer.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "run", "(I)J", null, null);
        run.visitCode();
        Label first = new Label();
        run.visitLabel(first);
        run.visitLineNumber(10, first);
        run.visitVarInsn(Opcodes.ILOAD, 0);
        run.visitMethodInsn(Opcodes.INVOKESTATIC, OWNER, "leaf", "(I)J", false);
        Label second = new Label();
        run.visitLabel(second);
        run.visitLineNumber(11, second);
        run.visitVarInsn(Opcodes.ILOAD, 0);
        run.visitInsn(Opcodes.ICONST_1);
        run.visitInsn(Opcodes.IADD);
        run.visitMethodInsn(Opcodes.INVOKESTATIC, OWNER, "leaf", "(I)J", false);
        run.visitInsn(Opcodes.LADD);
        run.visitInsn(Opcodes.LRETURN);
        run.visitMaxs(0, 0);
        run.visitEnd();
        writer.visitEnd();
        return writer.toByteArray();
    }

    static final class Loader extends ClassLoader {
        Loader() {
            super(ClassLoading.class.getClassLoader());
        }

        Class<?> define(String name) {
            byte[] bytes = generate(name);
            return defineClass(name, bytes, 0, bytes.length);
        }
    }
}
