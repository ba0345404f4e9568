package io.stackreq.jfr.internal;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Rewrites {@code jdk.jfr.internal.RepositoryChunk} so that {@code finish(Instant)} first calls
 * {@code io.stackreq.jfr.boot.ChunkFinishHook.finishing(String.valueOf(file))}, and its
 * constructors end by calling {@code ChunkFinishHook.opened(String.valueOf(file))}, where
 * {@code file} is the file the JVM writes the chunk into: {@code chunkFile} on JDK 17 and later
 * (where {@code finish} returns a boolean), {@code unFinishedFile} on JDK 11 (the {@code .part}
 * file that {@code finish}, void there, renames to the chunk's {@code .jfr} before it measures
 * it). Called by libstackreq from its ClassFileLoadHook while it retransforms that one class.
 * When neither field or no such method is there (a JDK whose JFR works differently), nothing is
 * changed and the caller is told why, so that stackreq falls back to appending its events when a
 * recording stops.
 */
public final class ChunkHookTransformer {
    static final String TARGET = "jdk/jfr/internal/RepositoryChunk";
    private static final String METHOD = "finish";
    /** Followed by Z (JDK 17 and later) or V (JDK 11). */
    private static final String METHOD_PARAMETERS = "(Ljava/time/Instant;)";
    /** The file the JVM writes the chunk into, by JDK: 17 and later, then 11. */
    private static final String[] FIELDS = {"chunkFile", "unFinishedFile"};
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
                (reader, writer) -> new Rewrite(writer, findField(reader)));
        lastError = result.error();
        return result.classFile();
    }

    /** Why the last {@link #transform} returned null, or null. */
    public static String lastError() {
        return lastError;
    }

    /** A field of the class: its name and descriptor. */
    private static final class Field {
        final String name;
        final String descriptor;

        Field(String name, String descriptor) {
            this.name = name;
            this.descriptor = descriptor;
        }
    }

    private static final class Rewrite extends ClassRewriting.Rewrite {
        private final Field field;  // null: no such field, nothing is rewritten
        private boolean foundMethod;
        private boolean foundConstructor;

        Rewrite(ClassVisitor writer, Field field) {
            super(writer);
            this.field = field;
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                String[] exceptions) {
            MethodVisitor next = super.visitMethod(access, name, descriptor, signature, exceptions);
            if (field == null) return next;
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
            if (!METHOD.equals(name) || !isFinishDescriptor(descriptor) || (access & Opcodes.ACC_STATIC) != 0) {
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
            if (field == null) return TARGET + " has no field " + String.join(" or ", FIELDS);
            if (!foundMethod) return TARGET + " has no method " + METHOD + METHOD_PARAMETERS + "Z or V";
            return foundConstructor ? null : TARGET + " has no constructor";
        }

        /** {@code HOOK.method(String.valueOf(this.file))}. */
        private void callHook(MethodVisitor code, String method) {
            code.visitVarInsn(Opcodes.ALOAD, 0);
            code.visitFieldInsn(Opcodes.GETFIELD, TARGET, field.name, field.descriptor);
            code.visitMethodInsn(Opcodes.INVOKESTATIC, "java/lang/String", "valueOf",
                    "(Ljava/lang/Object;)Ljava/lang/String;", false);
            code.visitMethodInsn(Opcodes.INVOKESTATIC, HOOK, method, "(Ljava/lang/String;)V", false);
        }
    }

    private static boolean isFinishDescriptor(String descriptor) {
        return descriptor.equals(METHOD_PARAMETERS + "Z") || descriptor.equals(METHOD_PARAMETERS + "V");
    }

    /** The first of {@link #FIELDS} the class has as an object field, or null. */
    private static Field findField(ClassReader reader) {
        Field[] found = new Field[FIELDS.length];
        reader.accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public FieldVisitor visitField(int access, String name, String fieldDescriptor, String signature,
                    Object value) {
                for (int i = 0; i < FIELDS.length; i++) {
                    if (FIELDS[i].equals(name) && (access & Opcodes.ACC_STATIC) == 0 && fieldDescriptor.startsWith("L")) {
                        found[i] = new Field(name, fieldDescriptor);
                    }
                }
                return null;
            }
        }, ClassReader.SKIP_CODE);
        for (Field field : found) {
            if (field != null) return field;
        }
        return null;
    }
}
