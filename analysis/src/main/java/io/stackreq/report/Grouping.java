package io.stackreq.report;

import io.stackreq.tree.FrameKey;

/** What one report entry stands for ({@code --by}). */
public enum Grouping {
    METHOD(FrameKey.METHOD),
    LINE(FrameKey.LINE),
    STACK(FrameKey.LINE);

    private final FrameKey frameKey;

    Grouping(FrameKey frameKey) {
        this.frameKey = frameKey;
    }

    /** The call tree a report of this grouping is computed from. */
    public FrameKey frameKey() {
        return frameKey;
    }

    public String optionName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
