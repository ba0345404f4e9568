package io.stackreq.validation.oracle;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import org.objectweb.asm.ClassReader;

/**
 * Builds the oracle's {@code -javaagent} jar: a manifest naming {@link OracleAgent} (found on the
 * target JVM's class path, the test classes) plus a copy of ASM's classes, which the target JVM
 * does not otherwise have.
 */
public final class OracleAgentJar {
    private OracleAgentJar() {
    }

    public static Path build(Path jar) {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(new Attributes.Name("Premain-Class"), OracleAgent.class.getName());
        try {
            Files.createDirectories(jar.getParent());
            Path asm = Path.of(ClassReader.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest);
                    JarFile in = new JarFile(asm.toFile())) {
                for (JarEntry entry : java.util.Collections.list(in.entries())) {
                    if (entry.getName().startsWith("org/objectweb/asm/") && !entry.isDirectory()) {
                        out.putNextEntry(new JarEntry(entry.getName()));
                        in.getInputStream(entry).transferTo(out);
                        out.closeEntry();
                    }
                }
            }
            return jar.toAbsolutePath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
