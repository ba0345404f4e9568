package io.stackreq.jfr.internal;

import static java.lang.constant.ConstantDescs.CD_Object;
import static java.lang.constant.ConstantDescs.CD_void;

import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeTransform;
import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;

/**
 * The class-file API's rewrite of {@code jdk.jfr.internal.PlatformEventType} (JDK 24 and later),
 * the same as the ASM one used below JDK 24: {@code setEnabled(boolean)} calls
 * {@code io.stackreq.jfr.boot.EnabledFlagHook.enabledSet(this)} before each return, once the flag
 * is set. Without that method nothing is changed and the caller is told why; stackreq then reads
 * the flag when its emitter wakes (within 100 ms).
 */
public final class EnabledFlagHookTransformer {
    static final String TARGET = "jdk/jfr/internal/PlatformEventType";
    private static final String METHOD = "setEnabled";
    private static final String METHOD_DESCRIPTOR = "(Z)V";
    private static final ClassDesc HOOK = ClassDesc.of("io.stackreq.jfr.boot.EnabledFlagHook");

    private static volatile String lastError;

    private EnabledFlagHookTransformer() {
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
        @Override
        public String missing(ClassModel model) {
            return model.methods().stream().anyMatch(m -> ClassRewriting.isInstanceMethod(m, METHOD, METHOD_DESCRIPTOR))
                    ? null : TARGET + " has no method " + METHOD + METHOD_DESCRIPTOR;
        }

        @Override
        public ClassTransform transform(ClassModel model) {
            CodeTransform enabledSet = ClassRewriting.beforeEachReturn(code -> {
                code.aload(0);
                code.invokestatic(HOOK, "enabledSet", MethodTypeDesc.of(CD_void, CD_Object));
            });
            return ClassRewriting.rewritingCode(
                    method -> ClassRewriting.isInstanceMethod(method, METHOD, METHOD_DESCRIPTOR) ? enabledSet : null);
        }
    }
}
