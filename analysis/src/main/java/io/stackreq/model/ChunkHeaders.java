package io.stackreq.model;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Walks the chunk headers of a JFR file before JMC reads it. JMC sizes its read buffer by a
 * chunk's declared size, so one corrupt size field makes it try to allocate up to 2 GB (an
 * OutOfMemoryError, whatever the file's real size), and it silently drops a chunk that is cut
 * short (the CLI would then blame the recording settings for the missing events).
 */
final class ChunkHeaders {
    /** Magic, version, size, constant-pool and metadata offsets, start, duration, ticks, flags. */
    static final int HEADER_BYTES = 68;
    private static final int MAGIC = 0x464c5200; // "FLR\0"

    private ChunkHeaders() {
    }

    /**
     * @throws InputException when a chunk declares a size smaller than its header or larger than
     *                        what is left of the file; a file that does not start with a chunk is
     *                        left to JMC to describe
     */
    static void check(Path file) {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long length = channel.size();
            ByteBuffer header = ByteBuffer.allocate(16);
            long offset = 0;
            while (offset < length) {
                header.clear();
                while (header.hasRemaining() && channel.read(header, offset + header.position()) > 0) {
                    // reads until the 16 bytes are in or the file ends
                }
                if (header.position() < 16 || header.getInt(0) != MAGIC) {
                    if (offset == 0) {
                        return;
                    }
                    throw new InputException("cannot read recording " + file + ": no chunk starts at byte " + offset
                            + " (the file is corrupt)");
                }
                long size = header.getLong(8);
                if (size < HEADER_BYTES || size > length - offset) {
                    throw new InputException("cannot read recording " + file + ": the chunk at byte " + offset
                            + " declares " + size + " bytes but " + (length - offset)
                            + " remain (the file is cut short or corrupt)");
                }
                offset += size;
            }
        } catch (IOException e) {
            throw new InputException("cannot read recording " + file + ": " + e.getMessage(), e);
        }
    }
}
