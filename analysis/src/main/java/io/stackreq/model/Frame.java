package io.stackreq.model;

import java.util.Objects;

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

    /** {@code package.Class.method}: the name reports and flame graphs use. */
    public String qualifiedMethod() {
        return className.isEmpty() ? methodName : className + "." + methodName;
    }
}
