package io.stackreq.jfr.internal;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Rewrites {@code jdk.jfr.internal.RepositoryChunk} so that {@code finish(Instant)} first calls
 * {@code io.stackreq.jfr.boot.ChunkFinishHook.finishing(String.valueOf(chunkFile))}, and its
 * constructors end by calling {@code ChunkFinishHook.opened(String.valueOf(chunkFile))}. Called by
 * libstackreq from its ClassFileLoadHook while it retransforms that one class. When the method or
 * the {@code chunkFile} field is not there (a JDK whose JFR works differently), nothing is changed
 * and the caller is told why, so that stackreq falls back to appending its events when a
 * recording stops.
 */
public final class ChunkHookTransformer {
    static final String TARGET = "jdk/jfr/internal/RepositoryChunk";
    private static final String METHOD = "finish";
    private static final String METHOD_DESCRIPTOR = "(Ljava/time/Instant;)Z";
    private static final String FIELD = "chunkFile";
    private static final String HOOK = "io/stackreq/jfr/boot/ChunkFinishHook";

    private static volatile String lastError;

    private ChunkHookTransformer() {
    }

    /**
     * Returns the rewritten class, or null (and {@link #lastError} says why) when the class does
     * not have the expected shape.
     */
    public static byte[] transform(byte[] classFile) {
        ClassRewriting.Result result = ClassRewriting.apply(TARGET, classFile,
                (reader, writer) -> new Rewrite(writer, findFieldDescriptor(reader)));
        lastError = result.error();
        return result.classFile();
    }

    /** Why the last {@link #transform} returned null, or null. */
    public static String lastError() {
        return lastError;
    }

    private static final class Rewrite extends ClassRewriting.Rewrite {
        private final String fieldDescriptor;  // null: no such field, nothing is rewritten
        private boolean foundMethod;
        private boolean foundConstructor;

        Rewrite(ClassVisitor writer, String fieldDescriptor) {
            super(writer);
            this.fieldDescriptor = fieldDescriptor;
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                String[] exceptions) {
            MethodVisitor next = super.visitMethod(access, name, descriptor, signature, exceptions);
            if (fieldDescriptor == null) return next;
            if ("<init>".equals(name)) {
                foundConstructor = true;
                return new MethodVisitor(Opcodes.ASM9, next) {
                    @Override
                    public void visitInsn(int opcode) {
                        if (opcode == Opcodes.RETURN) {
                            // The field is set by now; straight-line code before the return keeps
                            // the stack map frames valid.
                            callHook(this, "opened");
                        }
                        super.visitInsn(opcode);
                    }
                };
            }
            if (!METHOD.equals(name) || !METHOD_DESCRIPTOR.equals(descriptor) || (access & Opcodes.ACC_STATIC) != 0) {
                return next;
            }
            foundMethod = true;
            return new MethodVisitor(Opcodes.ASM9, next) {
                @Override
                public void visitCode() {
                    super.visitCode();
                    // Straight-line code: the method's existing stack map frames stay valid.
                    callHook(this, "finishing");
                }
            };
        }

        @Override
        String missing() {
            if (fieldDescriptor == null) return TARGET + " has no field " + FIELD;
            if (!foundMethod) return TARGET + " has no method " + METHOD + METHOD_DESCRIPTOR;
            return foundConstructor ? null : TARGET + " has no constructor";
        }

        /** {@code HOOK.method(String.valueOf(this.chunkFile))}. */
        private void callHook(MethodVisitor code, String method) {
            code.visitVarInsn(Opcodes.ALOAD, 0);
            code.visitFieldInsn(Opcodes.GETFIELD, TARGET, FIELD, fieldDescriptor);
            code.visitMethodInsn(Opcodes.INVOKESTATIC, "java/lang/String", "valueOf",
                    "(Ljava/lang/Object;)Ljava/lang/String;", false);
            code.visitMethodInsn(Opcodes.INVOKESTATIC, HOOK, method, "(Ljava/lang/String;)V", false);
        }
    }

    private static String findFieldDescriptor(ClassReader reader) {
        String[] descriptor = new String[1];
        reader.accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public FieldVisitor visitField(int access, String name, String fieldDescriptor, String signature,
                    Object value) {
                if (FIELD.equals(name) && (access & Opcodes.ACC_STATIC) == 0 && fieldDescriptor.startsWith("L")) {
                    descriptor[0] = fieldDescriptor;
                }
                return null;
            }
        }, ClassReader.SKIP_CODE);
        return descriptor[0];
    }
}
