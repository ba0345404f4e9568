package io.stackreq.jfr.internal;

import static java.lang.constant.ConstantDescs.CD_Object;
import static java.lang.constant.ConstantDescs.CD_String;
import static java.lang.constant.ConstantDescs.CD_void;

import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.CodeTransform;
import java.lang.classfile.FieldModel;
import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.reflect.AccessFlag;

/**
 * The class-file API's rewrite of {@code jdk.jfr.internal.RepositoryChunk} (JDK 24 and later), the
 * same as the ASM one used below JDK 24: {@code finish(Instant)} first calls
 * {@code io.stackreq.jfr.boot.ChunkFinishHook.finishing(String.valueOf(file))} and the
 * constructors end by calling {@code ChunkFinishHook.opened(String.valueOf(file))}, where
 * {@code file} is the file the JVM writes the chunk into ({@code chunkFile}; JDK 11 names it
 * {@code unFinishedFile}). Without that field or method nothing is changed and the caller is told
 * why, so that stackreq falls back to appending its events when a recording stops.
 */
public final class ChunkHookTransformer {
    static final String TARGET = "jdk/jfr/internal/RepositoryChunk";
    private static final String METHOD = "finish";
    private static final String[] METHOD_DESCRIPTORS = {"(Ljava/time/Instant;)Z", "(Ljava/time/Instant;)V"};
    private static final String[] FIELDS = {"chunkFile", "unFinishedFile"};
    private static final ClassDesc HOOK = ClassDesc.of("io.stackreq.jfr.boot.ChunkFinishHook");

    private static volatile String lastError;

    private ChunkHookTransformer() {
    }

    /**
     * Returns the rewritten class, or null (and {@link #lastError} says why) when the class does
     * not have the expected shape.
     */
    public static byte[] transform(byte[] classFile) {
        ClassRewriting.Result result = ClassRewriting.apply(TARGET, classFile, new Rewrite());
        lastError = result.error();
        return result.classFile();
    }

    /** Why the last {@link #transform} returned null, or null. */
    public static String lastError() {
        return lastError;
    }

    private static final class Rewrite implements ClassRewriting.Rewrite {
        private FieldModel field;

        @Override
        public String missing(ClassModel model) {
            field = null;
            for (String name : FIELDS) {
                for (FieldModel candidate : model.fields()) {
                    if (field == null && candidate.fieldName().equalsString(name)
                            && !candidate.flags().has(AccessFlag.STATIC)
                            && candidate.fieldType().stringValue().startsWith("L")) {
                        field = candidate;
                    }
                }
            }
            if (field == null) return TARGET + " has no field " + String.join(" or ", FIELDS);
            if (model.methods().stream().noneMatch(m -> ClassRewriting.isInstanceMethod(m, METHOD, METHOD_DESCRIPTORS))) {
                return TARGET + " has no method " + METHOD + " " + String.join(" or ", METHOD_DESCRIPTORS);
            }
            if (model.methods().stream().noneMatch(m -> m.methodName().equalsString("<init>"))) {
                return TARGET + " has no constructor";
            }
            return null;
        }

        @Override
        public ClassTransform transform(ClassModel model) {
            ClassDesc owner = model.thisClass().asSymbol();
            String name = field.fieldName().stringValue();
            ClassDesc type = field.fieldTypeSymbol();
            CodeTransform finishing = ClassRewriting.atStart(code -> callHook(code, owner, name, type, "finishing"));
            CodeTransform opened = ClassRewriting.beforeEachReturn(code -> callHook(code, owner, name, type, "opened"));
            return ClassRewriting.rewritingCode(method -> ClassRewriting.isInstanceMethod(method, METHOD,
                    METHOD_DESCRIPTORS) ? finishing : method.methodName().equalsString("<init>") ? opened : null);
        }

        /** {@code HOOK.method(String.valueOf(this.field))}. */
        private static void callHook(CodeBuilder code, ClassDesc owner, String name, ClassDesc type, String method) {
            code.aload(0);
            code.getfield(owner, name, type);
            code.invokestatic(CD_String, "valueOf", MethodTypeDesc.of(CD_String, CD_Object));
            code.invokestatic(HOOK, method, MethodTypeDesc.of(CD_void, CD_String));
        }
    }
}
