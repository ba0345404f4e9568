package io.stackreq.profile;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

import io.stackreq.model.InputException;

/**
 * Where {@code libstackreq.so}, {@code libstackreq-perf.so} and {@code stackreq.jfc} (the JFR
 * settings that enable the event) are: {@code --agent-dir}, else the
 * system property {@code stackreq.native.dir}, else {@code STACKREQ_NATIVE_DIR}, else
 * {@code <dir of stackreq.jar>/../../jvmti-ext/target/native} (the build tree's layout).
 */
public record AgentDirectory(Path directory) {
    public static final String REQUEST_AGENT = "libstackreq.so";
    public static final String PERF_AGENT = "libstackreq-perf.so";
    public static final String EVENT_SETTINGS = "stackreq.jfc";

    public static AgentDirectory resolve(Path option) {
        Path directory = option;
        String source = "--agent-dir";
        if (directory == null && System.getProperty("stackreq.native.dir") != null) {
            directory = Paths.get(System.getProperty("stackreq.native.dir"));
            source = "-Dstackreq.native.dir";
        }
        if (directory == null && System.getenv("STACKREQ_NATIVE_DIR") != null) {
            directory = Paths.get(System.getenv("STACKREQ_NATIVE_DIR"));
            source = "STACKREQ_NATIVE_DIR";
        }
        if (directory == null) {
            directory = besideJar();
            source = "the build tree next to stackreq.jar";
        }
        AgentDirectory agents = new AgentDirectory(directory.toAbsolutePath().normalize());
        for (Path file : new Path[] {agents.requestAgent(), agents.perfAgent(), agents.eventSettings()}) {
            if (!Files.isRegularFile(file)) {
                throw new InputException(file.getFileName() + " not found in " + agents.directory() + " (from "
                        + source + "): build it with 'mvn -B package -DskipTests' or pass --agent-dir DIR");
            }
        }
        return agents;
    }

    public Path requestAgent() {
        return directory.resolve(REQUEST_AGENT);
    }

    public Path perfAgent() {
        return directory.resolve(PERF_AGENT);
    }

    /**
     * The .jfc that enables {@code jdk.StackTraceRequest}, named after the JDK's default settings:
     * the one way to enable it that JDK 11 (which has no {@code +event#setting} syntax) shares with
     * the later JDKs.
     */
    public Path eventSettings() {
        return directory.resolve(EVENT_SETTINGS);
    }

    private static Path besideJar() {
        try {
            Path jar = Paths.get(AgentDirectory.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            // analysis/target/stackreq.jar (or analysis/target/classes) -> jvmti-ext/target/native
            return jar.toAbsolutePath().getParent().resolve("../../jvmti-ext/target/native");
        } catch (URISyntaxException | RuntimeException e) {
            return Paths.get("jvmti-ext/target/native");
        }
    }
}
