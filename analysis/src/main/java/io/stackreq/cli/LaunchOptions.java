package io.stackreq.cli;

import java.nio.file.Path;

import io.stackreq.profile.AgentDirectory;
import picocli.CommandLine.Option;

/** How {@code profile} and {@code demo} launch the JVM they profile: which java, which agents. */
final class LaunchOptions {
    @Option(names = "--java", paramLabel = "PATH",
            description = "java launcher to run (default: $JAVA_HOME/bin/java, else the java running stackreq)")
    Path java;

    @Option(names = "--agent-dir", paramLabel = "DIR",
            description = "Directory with libstackreq.so and libstackreq-perf.so")
    Path agentDir;

    Path javaLauncher() {
        return Profiling.javaLauncher(java);
    }

    AgentDirectory agents() {
        return AgentDirectory.resolve(agentDir);
    }
}
