package io.stackreq.jfr.internal;

import java.util.function.BiFunction;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Opcodes;

/**
 * What the transformers of JFR's classes share: a class file read, rewritten by a visitor that
 * notes what it found, and either the new class file or the reason it was left as it was. The
 * classes are checked, not assumed: a JDK whose JFR works differently keeps its class unchanged,
 * and libstackreq reports the reason and falls back.
 */
final class ClassRewriting {
    private ClassRewriting() {
    }

    /** The visitor of one rewrite, which notes what it found. */
    abstract static class Rewrite extends ClassVisitor {
        Rewrite(ClassVisitor writer) {
            super(Opcodes.ASM9, writer);
        }

        /** After the visit: why the class cannot be rewritten, or null when it was. */
        abstract String missing();
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

    static Result apply(String target, byte[] classFile, BiFunction<ClassReader, ClassVisitor, Rewrite> rewriteOf) {
        try {
            ClassReader reader = new ClassReader(classFile);
            ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
            Rewrite rewrite = rewriteOf.apply(reader, writer);
            reader.accept(rewrite, 0);
            String missing = rewrite.missing();
            return missing == null ? new Result(writer.toByteArray(), null) : new Result(null, missing);
        } catch (RuntimeException e) {
            return new Result(null, "cannot rewrite " + target + ": " + e);
        }
    }
}
