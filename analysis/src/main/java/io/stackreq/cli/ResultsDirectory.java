package io.stackreq.cli;

import java.nio.file.Path;

import picocli.CommandLine.Option;

/** Where {@code profile} and {@code demo} write their results; each command names its own default. */
final class ResultsDirectory {
    @Option(names = {"-o", "--output"}, paramLabel = "DIR",
            description = "Directory for the results (default: ${DEFAULT-VALUE})")
    Path path;

    ResultsDirectory(String defaultPath) {
        path = Path.of(defaultPath);
    }
}
