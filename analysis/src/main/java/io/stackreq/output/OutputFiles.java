package io.stackreq.output;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

import io.stackreq.model.InputException;

/**
 * Opens every file the CLI writes. A symbolic link at the path is refused, never followed (in a
 * shared directory it could point at any file of the user running stackreq; the agent's file=
 * opens with O_NOFOLLOW likewise). New files are created rw-r--r-- and directories rwxr-xr-x
 * (the umask can only take more away); an existing file that others may write loses that
 * permission before it is written, and is refused when that cannot be done.
 */
public final class OutputFiles {
    private static final Set<PosixFilePermission> FILE_MODE = PosixFilePermissions.fromString("rw-r--r--");
    private static final Set<PosixFilePermission> DIRECTORY_MODE = PosixFilePermissions.fromString("rwxr-xr-x");
    private static final Set<OpenOption> CREATE_OR_TRUNCATE = Set.of(StandardOpenOption.WRITE,
            StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, LinkOption.NOFOLLOW_LINKS);

    private OutputFiles() {
    }

    /**
     * @throws InputException when the path is a symbolic link, another user's file that everyone
     *                        may write, or cannot be written
     */
    public static OutputStream newOutputStream(Path file) {
        return Channels.newOutputStream(newChannel(file));
    }

    /**
     * As {@link #newOutputStream}, for a writer that goes back to fill in what it learns last (a
     * JFR chunk's header).
     */
    public static SeekableByteChannel newChannel(Path file) {
        if (Files.isSymbolicLink(file)) {
            throw symbolicLink(file);
        }
        try {
            createDirectories(file.toAbsolutePath().getParent());
            SeekableByteChannel channel = Files.newByteChannel(file, CREATE_OR_TRUNCATE,
                    PosixFilePermissions.asFileAttribute(FILE_MODE));
            try {
                closeToOthers(file);
            } catch (IOException e) {
                channel.close();
                throw new InputException("refusing to write " + file + ": everyone may write it and its permissions "
                        + "cannot be changed (" + e.getMessage() + ")", e);
            }
            return channel;
        } catch (FileSystemException e) {
            if (Files.isSymbolicLink(file)) {
                throw symbolicLink(file);
            }
            throw new InputException("cannot write " + file + ": " + describe(e), e);
        } catch (IOException e) {
            throw new InputException("cannot write " + file + ": " + e.getMessage(), e);
        } catch (UnsupportedOperationException e) {
            throw new InputException("cannot write " + file + ": the file system has no POSIX permissions", e);
        }
    }

    /** A UTF-8 writer on {@link #newOutputStream}. */
    public static BufferedWriter newWriter(Path file) {
        return new BufferedWriter(new OutputStreamWriter(newOutputStream(file), StandardCharsets.UTF_8), 1 << 16);
    }

    /** Creates missing directories rwxr-xr-x; existing ones are left as they are. */
    public static void createDirectories(Path directory) throws IOException {
        if (directory != null && !Files.isDirectory(directory)) {
            Files.createDirectories(directory, PosixFilePermissions.asFileAttribute(DIRECTORY_MODE));
        }
    }

    private static void closeToOthers(Path file) throws IOException {
        PosixFileAttributeView view = Files.getFileAttributeView(file, PosixFileAttributeView.class,
                LinkOption.NOFOLLOW_LINKS);
        Set<PosixFilePermission> permissions = view.readAttributes().permissions();
        if (permissions.remove(PosixFilePermission.OTHERS_WRITE)) {
            view.setPermissions(permissions);
        }
    }

    private static InputException symbolicLink(Path file) {
        return new InputException("refusing to write " + file + ": it is a symbolic link (stackreq does not write "
                + "through links; remove it or choose another path)");
    }

    private static String describe(FileSystemException e) {
        return e.getReason() == null ? e.getClass().getSimpleName() : e.getReason();
    }
}
