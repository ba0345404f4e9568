package io.stackreq.tree;

import io.stackreq.model.Frame;

/** What makes two frames the same node of a call tree. */
public enum FrameKey {
    /** {@code package.Class.method}: lines and frame types merged. */
    METHOD,
    /** {@code package.Class.method:line}. */
    LINE;

    public String of(Frame frame) {
        return this == METHOD ? frame.qualifiedMethod() : frame.qualifiedMethod() + ":" + frame.lineNumber();
    }
}
