package io.stackreq.testapp;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The attach targets' {@code dir/pid}, which tells the test they are ready: written whole under
 * another name and renamed, since the test reads it as soon as it exists (a file written in place
 * was once read empty).
 */
public final class PidFile {
    private PidFile() {
    }

    public static void write(Path dir) throws IOException {
        Path file = dir.resolve("pid");
        Path temporary = dir.resolve("pid.tmp");
        Files.writeString(temporary, Long.toString(ProcessHandle.current().pid()));
        Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE);
    }
}
