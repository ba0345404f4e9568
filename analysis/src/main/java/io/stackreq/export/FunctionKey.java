package io.stackreq.export;

import io.stackreq.model.Frame;

/**
 * What makes two frames the same function: its name and descriptor (overloads differ).
 *
 * @param name {@code package.Class.method}, the name reports use
 */
record FunctionKey(String name, String descriptor) {
    static FunctionKey of(Frame frame) {
        return new FunctionKey(frame.qualifiedMethod(), frame.descriptor());
    }

    /** The name with the JVM descriptor, which tells overloads apart. */
    String systemName() {
        return name + descriptor;
    }
}
