package io.stackreq.report;

import java.util.Map;

/** Names of the jvmtiError codes RequestStackTrace returns, for reports. */
final class JvmtiErrors {
    private static final Map<Integer, String> NAMES = Map.ofEntries(
            Map.entry(0, "NONE"),
            Map.entry(10, "INVALID_THREAD"),
            Map.entry(15, "THREAD_NOT_ALIVE"),
            Map.entry(98, "NOT_AVAILABLE"),
            Map.entry(99, "MUST_POSSESS_CAPABILITY"),
            Map.entry(100, "NULL_POINTER"),
            Map.entry(103, "ILLEGAL_ARGUMENT"),
            Map.entry(112, "WRONG_PHASE"),
            Map.entry(113, "INTERNAL"),
            Map.entry(115, "UNATTACHED_THREAD"),
            Map.entry(116, "INVALID_ENVIRONMENT"),
            Map.entry(73, "UNSUPPORTED_OPERATION"),
            Map.entry(110, "OUT_OF_MEMORY"));

    private JvmtiErrors() {
    }

    /** "112 (WRONG_PHASE)", or just the number for codes without a name here. */
    static String describe(int code) {
        String name = NAMES.get(code);
        return name == null ? Integer.toString(code) : code + " (" + name + ")";
    }
}
