package io.stackreq.model;

import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One stack frame as JFR records it.
 *
 * @param className     binary class name with dots ({@code java.lang.String}), never null
 * @param methodName    method name, never null
 * @param descriptor    JVM method descriptor, or empty when the recording has none
 * @param lineNumber    source line, or -1 when unknown
 * @param bytecodeIndex bytecode index, or -1 when unknown
 * @param type          frame type description as recorded ("JIT compiled", "Interpreted",
 *                      "Inlined", "Native", stackreq's "Java"), or empty when unknown
 */
public record Frame(String className, String methodName, String descriptor, int lineNumber, int bytecodeIndex,
        String type) {

    public Frame {
        Objects.requireNonNull(className, "className");
        Objects.requireNonNull(methodName, "methodName");
        descriptor = descriptor == null ? "" : descriptor;
        type = type == null ? "" : type;
    }

    /** A shared object's file name: libjvm.so, libc.so.6, linux-vdso.so.1. */
    /** What libstackreq writes as the class of JVM-generated code and of code in no known object. */
    private static final Set<String> NATIVE_CODE_CLASSES = Set.of("jvm-stubs", "unknown-code");
    private static final Pattern LIBRARY = Pattern.compile(".+\\.so(\\.[0-9]+)*");

    /**
     * {@code package.Class.method}: the name reports and flame graphs use; for native code
     * ({@link #isNativeCode}) {@code function [library]}, or the {@code [library+0xoffset]} the
     * agent wrote for an address no symbol names.
     */
    public String qualifiedMethod() {
        if (isNativeCode()) {
            return methodName.startsWith("[") ? methodName : methodName + " [" + className + "]";
        }
        return className.isEmpty() ? methodName : className + "." + methodName;
    }

    /**
     * Whether this is a frame of C/C++ code or a JVM stub, as libstackreq writes them with
     * {@code native=on}: type {@code Native}, the class being the library's file name or
     * {@code jvm-stubs} / {@code unknown-code}. A Java native method is also {@code Native}, but its
     * class is a Java class.
     */
    public boolean isNativeCode() {
        return type.equals("Native")
                && (NATIVE_CODE_CLASSES.contains(className) || LIBRARY.matcher(className).matches());
    }
}
