package io.stackreq.jfr.internal;

import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.CodeElement;
import java.lang.classfile.CodeTransform;
import java.lang.classfile.MethodModel;
import java.lang.classfile.MethodTransform;
import java.lang.classfile.Opcode;
import java.lang.classfile.instruction.ReturnInstruction;
import java.lang.reflect.AccessFlag;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What the transformers of JFR's classes share, with the JDK's own class-file API (JDK 24 and
 * later: it reads every class file the running JDK can load, where a copy of ASM stops at the
 * versions it knew when it was released): a class file read, checked, and either rewritten or
 * left as it was with the reason. The classes are checked, not assumed: a JDK whose JFR works
 * differently keeps its class unchanged, and libstackreq reports the reason and falls back.
 */
final class ClassRewriting {
    private ClassRewriting() {
    }

    /** One rewrite of a class. */
    interface Rewrite {
        /** Why the class cannot be rewritten, or null when it can. */
        String missing(ClassModel model);

        /** The rewrite of a class {@link #missing} accepted. */
        ClassTransform transform(ClassModel model);
    }

    /** The outcome: the rewritten class file, or null and why not. */
    static final class Result {
        private final byte[] classFile;
        private final String error;

        Result(byte[] classFile, String error) {
            this.classFile = classFile;
            this.error = error;
        }

        byte[] classFile() {
            return classFile;
        }

        String error() {
            return error;
        }
    }

    static Result apply(String target, byte[] classFile, Rewrite rewrite) {
        try {
            ClassFile files = ClassFile.of();
            ClassModel model = files.parse(classFile);
            String missing = rewrite.missing(model);
            return missing == null ? new Result(files.transformClass(model, rewrite.transform(model)), null)
                    : new Result(null, missing);
        } catch (RuntimeException e) {
            return new Result(null, "cannot rewrite " + target + ": " + e);
        }
    }

    /**
     * Rewrites the code of each method that code gives a transform for (null: none), every other
     * element as it was. One transform for the whole class: two chained with andThen rewrote
     * nothing on JDK 25 (measured: neither's code transform was called).
     */
    static ClassTransform rewritingCode(Function<MethodModel, CodeTransform> code) {
        return (builder, element) -> {
            CodeTransform transform = element instanceof MethodModel method ? code.apply(method) : null;
            if (transform == null) {
                builder.with(element);
            } else {
                builder.transformMethod((MethodModel) element, MethodTransform.transformingCode(transform));
            }
        };
    }

    /** Whether method is an instance method of that name and one of those descriptors. */
    static boolean isInstanceMethod(MethodModel method, String name, String... descriptors) {
        if (!method.methodName().equalsString(name) || method.flags().has(AccessFlag.STATIC)) return false;
        for (String descriptor : descriptors) {
            if (method.methodType().equalsString(descriptor)) return true;
        }
        return false;
    }

    /** Runs call at the start of the code, before its first instruction. */
    static CodeTransform atStart(Consumer<CodeBuilder> call) {
        return new CodeTransform() {
            @Override
            public void atStart(CodeBuilder code) {
                call.accept(code);
            }

            @Override
            public void accept(CodeBuilder code, CodeElement element) {
                code.with(element);
            }
        };
    }

    /**
     * Runs call before each {@code return} of a void method: straight-line code that leaves the
     * operand stack as it was.
     */
    static CodeTransform beforeEachReturn(Consumer<CodeBuilder> call) {
        return (code, element) -> {
            if (element instanceof ReturnInstruction instruction && instruction.opcode() == Opcode.RETURN) {
                call.accept(code);
            }
            code.with(element);
        };
    }
}
