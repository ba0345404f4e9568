package io.stackreq.jfr.internal;

import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Rewrites {@code jdk.jfr.internal.PlatformEventType} so that {@code setEnabled(boolean)} calls
 * {@code io.stackreq.jfr.boot.EnabledFlagHook.enabledSet(this)} before each return, once the flag
 * is set. Called by libstackreq from its ClassFileLoadHook while it retransforms that one class.
 * Without that method nothing is changed and the caller is told why; stackreq then reads the flag
 * when its emitter wakes (within 100 ms), as before.
 */
public final class EnabledFlagHookTransformer {
    static final String TARGET = "jdk/jfr/internal/PlatformEventType";
    private static final String METHOD = "setEnabled";
    private static final String METHOD_DESCRIPTOR = "(Z)V";
    private static final String HOOK = "io/stackreq/jfr/boot/EnabledFlagHook";

    private static volatile String lastError;

    private EnabledFlagHookTransformer() {
    }

    /**
     * Returns the rewritten class, or null (and {@link #lastError} says why) when the class does
     * not have the expected shape.
     */
    public static byte[] transform(byte[] classFile) {
        return ClassRewriting.apply(TARGET, classFile, (reader, writer) -> new Rewrite(writer),
                error -> lastError = error);
    }

    /** Why the last {@link #transform} returned null, or null. */
    public static String lastError() {
        return lastError;
    }

    private static final class Rewrite extends ClassRewriting.Rewrite {
        private boolean found;

        Rewrite(ClassVisitor writer) {
            super(writer);
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                String[] exceptions) {
            MethodVisitor next = super.visitMethod(access, name, descriptor, signature, exceptions);
            if (!METHOD.equals(name) || !METHOD_DESCRIPTOR.equals(descriptor) || (access & Opcodes.ACC_STATIC) != 0) {
                return next;
            }
            found = true;
            return new MethodVisitor(Opcodes.ASM9, next) {
                @Override
                public void visitInsn(int opcode) {
                    if (opcode == Opcodes.RETURN) {
                        // Leaves the operand stack as it was: stack map frames stay valid.
                        super.visitVarInsn(Opcodes.ALOAD, 0);
                        super.visitMethodInsn(Opcodes.INVOKESTATIC, HOOK, "enabledSet", "(Ljava/lang/Object;)V", false);
                    }
                    super.visitInsn(opcode);
                }
            };
        }

        @Override
        String missing() {
            return found ? null : TARGET + " has no method " + METHOD + METHOD_DESCRIPTOR;
        }
    }
}
