package io.stackreq.testapp;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.nio.charset.StandardCharsets;
import java.security.ProtectionDomain;
import java.util.Arrays;

/**
 * A Java agent ({@code -javaagent}, after libstackreq.so) that makes JFR's classes other than
 * what stackreq expects, as another JDK or another agent could. Its argument names what it does:
 *
 * <ul>
 * <li>{@code rename-fields}: when {@code jdk.jfr.internal.RepositoryChunk} loads, its fields
 * {@code chunkFile} (JDK 17 on) and {@code unFinishedFile} (JDK 11) get other names of the same
 * length (the constant-pool strings that name them and nothing else are changed), as a JFR whose
 * internals moved would have them: stackreq's chunk hook finds no such field.</li>
 * <li>{@code break-retransform}: every retransformation of {@code RepositoryChunk} and
 * {@code PlatformEventType} yields half a class file, which the JVM refuses: the rewrites
 * stackreq makes of them fail after its rewriter ran.</li>
 * </ul>
 */
public final class JfrInternalsAgent {
    private static final String CHUNK = "jdk/jfr/internal/RepositoryChunk";
    private static final String EVENT_TYPE = "jdk/jfr/internal/PlatformEventType";

    private JfrInternalsAgent() {
    }

    public static void premain(String argument, Instrumentation instrumentation) {
        if ("rename-fields".equals(argument)) {
            instrumentation.addTransformer(new ClassFileTransformer() {
                @Override
                public byte[] transform(ClassLoader loader, String name, Class<?> redefined, ProtectionDomain domain,
                        byte[] classFile) {
                    if (!CHUNK.equals(name) || redefined != null) return null;
                    byte[] renamed = renameUtf8(classFile, "chunkFile", "chunkFilz");
                    return renameUtf8(renamed, "unFinishedFile", "unFinishedFilz");
                }
            }, false);
        } else if ("break-retransform".equals(argument)) {
            instrumentation.addTransformer(new ClassFileTransformer() {
                @Override
                public byte[] transform(ClassLoader loader, String name, Class<?> redefined, ProtectionDomain domain,
                        byte[] classFile) {
                    if (redefined == null || !(CHUNK.equals(name) || EVENT_TYPE.equals(name))) return null;
                    return Arrays.copyOf(classFile, classFile.length / 2);
                }
            }, true);
        } else {
            throw new IllegalArgumentException("JfrInternalsAgent: unknown argument " + argument);
        }
    }

    /**
     * Replaces the constant-pool entry CONSTANT_Utf8 {@code from} (tag 1, its length, its bytes)
     * with {@code to} of the same length; the class file as it was when there is none.
     */
    static byte[] renameUtf8(byte[] classFile, String from, String to) {
        byte[] pattern = utf8Entry(from);
        byte[] replacement = utf8Entry(to);
        byte[] out = classFile.clone();
        for (int i = 0; i + pattern.length <= out.length; i++) {
            if (Arrays.equals(out, i, i + pattern.length, pattern, 0, pattern.length)) {
                System.arraycopy(replacement, 0, out, i, replacement.length);
            }
        }
        return out;
    }

    private static byte[] utf8Entry(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        byte[] entry = new byte[bytes.length + 3];
        entry[0] = 1;
        entry[1] = (byte) (bytes.length >> 8);
        entry[2] = (byte) bytes.length;
        System.arraycopy(bytes, 0, entry, 3, bytes.length);
        return entry;
    }
}
