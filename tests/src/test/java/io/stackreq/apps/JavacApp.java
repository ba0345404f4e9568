package io.stackreq.apps;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.StandardLocation;
import javax.tools.ToolProvider;

/**
 * javac, the JDK's own compiler, in process (javax.tools): per round it compiles a real source
 * tree, Apache Commons Lang's ({@code org.apache.commons:commons-lang3} 3.17.0's sources jar, 249
 * files, no dependencies), read from the jar on the class path; class files go to memory and are
 * dropped. One thread; any compilation error fails the round.
 *
 * <p>{@code -Dstackreq.apps.javac.package=NAME} compiles only that package and its subpackages
 * (and what they use, from the source path): {@code org.apache.commons.lang3.math} is a round of
 * some tenths of a second where the whole tree takes seconds.
 */
final class JavacApp extends App implements App.Worker {
    static final String SOURCES_MARKER = "org/apache/commons/lang3/StringUtils.java";
    private final String root = System.getProperty("stackreq.apps.javac.package", "org.apache.commons.lang3");
    private JavaCompiler compiler;
    private Path sources;

    @Override public String name() { return "javac"; }

    @Override public List<String> ownPackages() { return List.of("com.sun.tools.javac."); }

    @Override public Worker worker(int thread) { return this; }

    @Override public void setUp() throws Exception {
        compiler = ToolProvider.getSystemJavaCompiler();
        if (compiler == null) {
            throw new IllegalStateException("no system Java compiler: run on a JDK, not a JRE");
        }
        sources = sourcesJar();
    }

    /** The commons-lang3 sources jar on the class path. */
    static Path sourcesJar() throws URISyntaxException {
        URL marker = ClassLoader.getSystemResource(SOURCES_MARKER);
        if (marker == null || !marker.getProtocol().equals("jar")) {
            throw new IllegalStateException("the commons-lang3 sources jar is not on the class path (no "
                    + SOURCES_MARKER + " in a jar)");
        }
        String spec = marker.getPath();
        return Path.of(new URI(spec.substring(0, spec.indexOf("!/"))));
    }

    @Override public long round(int index) throws IOException {
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT,
                StandardCharsets.UTF_8)) {
            files.setLocation(StandardLocation.SOURCE_PATH, List.of(sources.toFile()));
            List<JavaFileObject> units = new ArrayList<>();
            for (JavaFileObject unit : files.list(StandardLocation.SOURCE_PATH, root,
                    EnumSet.of(JavaFileObject.Kind.SOURCE), true)) {
                units.add(unit);
            }
            if (units.isEmpty()) {
                throw new IllegalStateException("no sources of " + root + " in " + sources);
            }
            InMemoryOutput output = new InMemoryOutput(files);
            boolean compiled = compiler.getTask(null, output, diagnostics,
                    List.of("-proc:none", "-g", "-nowarn", "-Xlint:none", "-encoding", "UTF-8"), null, units).call();
            if (!compiled) {
                StringBuilder errors = new StringBuilder();
                for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                    if (d.getKind() == Diagnostic.Kind.ERROR) {
                        errors.append('\n').append(d);
                    }
                }
                throw new IllegalStateException("javac failed on " + root + ":" + errors);
            }
            return output.bytes + units.size();
        }
    }

    /** Class files to memory, counted and dropped. */
    private static final class InMemoryOutput extends ForwardingJavaFileManager<StandardJavaFileManager> {
        long bytes;

        InMemoryOutput(StandardJavaFileManager files) {
            super(files);
        }

        @Override
        public JavaFileObject getJavaFileForOutput(Location location, String className, JavaFileObject.Kind kind,
                FileObject sibling) {
            return new SimpleJavaFileObject(URI.create("mem:///" + className.replace('.', '/') + kind.extension),
                    kind) {
                @Override
                public OutputStream openOutputStream() {
                    return new ByteArrayOutputStream() {
                        @Override
                        public void close() {
                            bytes += size();
                        }
                    };
                }
            };
        }
    }
}
