package bench;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * javac in process: per round one compilation of a real source tree (the files an argument file
 * lists, against a class path) into a directory of its own, warnings and notes discarded.
 */
final class JavacWorkload extends Workload {
    private final Path argumentFile;
    private final String classpath;
    private JavaCompiler javac;
    private Path output;

    /** @param argumentFile javac's {@code @file}: the source files, one a line */
    JavacWorkload(Path argumentFile, String classpath) {
        this.argumentFile = argumentFile;
        this.classpath = classpath;
    }

    @Override protected String name() { return "javac"; }

    @Override protected void setUp() throws Exception {
        javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) throw new IllegalStateException("no javac in this runtime (a JRE, not a JDK?)");
        output = Files.createTempDirectory("bench-javac");
    }

    @Override protected long round(int index) {
        int code = javac.run(null, OutputStream.nullOutputStream(), OutputStream.nullOutputStream(),
                "-proc:none", "-nowarn", "-d", output.toString(), "-cp", classpath, "@" + argumentFile);
        if (code != 0) throw new IllegalStateException("javac exited " + code + " on @" + argumentFile);
        return code + index;
    }

    @Override protected void tearDown() throws Exception {
        try (Stream<Path> files = Files.walk(output)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) Files.delete(file);
        }
    }
}
