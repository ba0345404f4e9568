package io.stackreq.apps;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A real application, from Maven Central or the JDK, doing a fixed amount of work per round on
 * one or more threads: the benchmarks' workloads ({@code tests/bench/run}), the CI test of a
 * real application and the oracle's application workloads run these. {@link AppMain} runs one.
 *
 * <p>Written to the Java 11 language and API, so that an application runs on every JDK the
 * project may support.
 */
public abstract class App {
    /** The names {@link #named} knows, in the order the benchmark tables list them. */
    public static final List<String> NAMES = List.of("javac", "h2", "hsqldb", "lucene", "http", "jackson");

    /** One thread's share of the work; its rounds run on that thread only. */
    public interface Worker extends AutoCloseable {
        /** One round of work; returns something that depends on the work so it cannot be skipped. */
        long round(int index) throws Exception;

        @Override
        default void close() throws Exception {
        }
    }

    public abstract String name();

    /** The packages of the application's own code, as prefixes of class names ("org.h2."). */
    public abstract List<String> ownPackages();

    /** Threads that run rounds at once, each with its own {@link Worker}. */
    public int threads() {
        return 1;
    }

    /** Shared state (a database, a server); before any worker. */
    public void setUp() throws Exception {
    }

    public abstract Worker worker(int thread) throws Exception;

    /** After every worker closed. */
    public void tearDown() throws Exception {
    }

    /** Whether a class name is of the application's own code. */
    public boolean owns(String className) {
        for (String prefix : ownPackages()) {
            if (className.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The jars an application needs on a JVM's class path besides the test classes, found where this
     * JVM loaded them from (one class of each library).
     */
    public static List<Path> libraries(String name) throws ClassNotFoundException, URISyntaxException {
        List<String> classes;
        switch (name) {
            case "javac": return List.of(JavacApp.sourcesJar());
            case "h2": classes = List.of("org.h2.Driver"); break;
            case "hsqldb": classes = List.of("org.hsqldb.jdbc.JDBCDriver"); break;
            case "lucene": classes = List.of("org.apache.lucene.index.IndexWriter"); break;
            case "http":
                classes = List.of("io.netty.util.Version", "io.netty.buffer.ByteBuf", "io.netty.resolver.AddressResolver",
                        "io.netty.channel.Channel", "io.netty.channel.unix.Socket", "io.netty.handler.codec.ByteToMessageDecoder",
                        "io.netty.handler.timeout.IdleStateHandler", "io.netty.handler.codec.http.HttpServerCodec");
                break;
            case "jackson":
                classes = List.of("com.fasterxml.jackson.databind.ObjectMapper", "com.fasterxml.jackson.core.JsonFactory",
                        "com.fasterxml.jackson.annotation.JsonProperty");
                break;
            default: throw new IllegalArgumentException("unknown application '" + name + "' (" + NAMES + ")");
        }
        List<Path> jars = new ArrayList<>();
        for (String type : classes) {
            jars.add(Path.of(Class.forName(type, false, App.class.getClassLoader()).getProtectionDomain().getCodeSource()
                    .getLocation().toURI()));
        }
        return jars;
    }

    public static App named(String name) {
        switch (name) {
            case "javac": return new JavacApp();
            case "h2": return OrderEntryApp.h2();
            case "hsqldb": return OrderEntryApp.hsqldb();
            case "lucene": return new LuceneApp();
            case "http": return new HttpApp();
            case "jackson": return new JacksonApp();
            default: throw new IllegalArgumentException("unknown application '" + name + "' (" + NAMES + ")");
        }
    }
}
