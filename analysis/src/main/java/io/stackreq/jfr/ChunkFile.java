package io.stackreq.jfr;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The chunks of a JFR file, read with positional reads: their headers, each one's metadata, or
 * one whole chunk at a time.
 */
final class ChunkFile implements Closeable {
    static final int HEADER_BYTES = 68;
    static final int MAGIC = 0x464c5200; // "FLR\0"
    /** The JDK's chunk header flag: integers are compressed (every JDK since 11 sets it). */
    static final int COMPRESSED_INTEGERS = 1;
    private static final int METADATA_PREFIX_BYTES = 5;

    /**
     * One chunk's header: where the chunk is in the file, its version, size and offsets (from the
     * chunk's start), its clock and flags.
     */
    record Header(long fileOffset, int major, int minor, long size, long constantPoolOffset, long metadataOffset,
            long startNanos, long durationNanos, long startTicks, long ticksPerSecond, int flags) {
        static Header read(ByteBuffer bytes, long fileOffset) {
            return new Header(fileOffset, bytes.getShort(4) & 0xffff, bytes.getShort(6) & 0xffff, bytes.getLong(8),
                    bytes.getLong(16), bytes.getLong(24), bytes.getLong(32), bytes.getLong(40), bytes.getLong(48),
                    bytes.getLong(56), bytes.getInt(64));
        }
    }

    private final FileChannel channel;

    ChunkFile(Path file) throws IOException {
        channel = FileChannel.open(file, StandardOpenOption.READ);
    }

    /**
     * Every chunk's header, in file order.
     *
     * @throws CorruptChunkException when a chunk does not start where the previous one ends, or is
     *                               cut short
     */
    List<Header> headers() throws IOException {
        List<Header> headers = new ArrayList<>();
        long length = channel.size();
        for (long start = 0; start < length; ) {
            if (length - start < HEADER_BYTES) {
                throw new CorruptChunkException("the " + (length - start) + " bytes at byte " + start
                        + " are too few for a chunk header (the file is cut short or corrupt)");
            }
            ByteBuffer bytes = read(start, HEADER_BYTES);
            if (bytes.getInt(0) != MAGIC) {
                throw new CorruptChunkException("no chunk starts at byte " + start);
            }
            Header header = Header.read(bytes, start);
            if (header.size() < HEADER_BYTES || header.size() > length - start) {
                throw new CorruptChunkException("the chunk at byte " + start + " declares " + header.size()
                        + " bytes but " + (length - start) + " remain (the file is cut short or corrupt)");
            }
            headers.add(header);
            start += header.size();
        }
        if (headers.isEmpty()) {
            throw new CorruptChunkException("the file is empty");
        }
        return headers;
    }

    /** The metadata the chunk's header points to. */
    ChunkMetadata metadata(Header header) throws IOException {
        if (header.metadataOffset() < HEADER_BYTES || header.metadataOffset() >= header.size()) {
            throw new CorruptChunkException("the metadata of the chunk at byte " + header.fileOffset()
                    + " is said to be at byte " + (header.fileOffset() + header.metadataOffset()));
        }
        long start = header.fileOffset() + header.metadataOffset();
        long available = header.size() - header.metadataOffset();
        ByteBuffer prefix = read(start, (int) Math.min(METADATA_PREFIX_BYTES, available));
        long size = new JfrInput(prefix).readLong();
        if (size <= 0 || size > available) {
            throw new CorruptChunkException("the metadata of the chunk at byte " + header.fileOffset()
                    + " declares " + size + " bytes");
        }
        return ChunkMetadata.read(new JfrInput(read(start, (int) size)));
    }

    /** The whole chunk, its first byte at index 0. */
    ByteBuffer load(Header header) throws IOException {
        if (header.size() > Integer.MAX_VALUE - 16) {
            throw new CorruptChunkException("the chunk at byte " + header.fileOffset() + " is larger than 2 GB");
        }
        return read(header.fileOffset(), (int) header.size());
    }

    private ByteBuffer read(long position, int length) throws IOException {
        ByteBuffer bytes = ByteBuffer.allocate(length);
        while (bytes.hasRemaining()) {
            if (channel.read(bytes, position + bytes.position()) < 0) {
                throw new CorruptChunkException("the file ends at byte " + (position + bytes.position())
                        + " inside a chunk");
            }
        }
        return bytes.flip();
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
