package io.stackreq.model;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Walks the skeleton of a JFR file before JMC parses it, because JMC trusts it: it sizes its
 * read buffer by a chunk's declared size (one corrupt size field: an attempt to allocate up to
 * 2 GB, OutOfMemoryError), silently drops a chunk that is cut short (the CLI then blamed the
 * recording settings for the missing events), loops forever on an event whose size field
 * decodes negative and on a constant-pool chain that points back and forth, and allocates the
 * metadata string table by a count it does not check. Checked per chunk: the declared size, that
 * the event sizes tile the chunk exactly, that the constant-pool chain only goes backwards
 * inside the chunk, and that the metadata string count fits the metadata event.
 */
final class RecordingStructure {
    /** Magic, version, size, constant-pool and metadata offsets, start, duration, ticks, features. */
    static final int HEADER_BYTES = 68;
    private static final int MAGIC = 0x464c5200; // "FLR\0"

    private final Path file;
    private final FileChannel channel;
    private final ByteBuffer window = ByteBuffer.allocate(1 << 16);
    private long windowStart = -1;
    private long windowEnd = -1;
    private long position;
    private boolean compressed;

    private RecordingStructure(Path file, FileChannel channel) {
        this.file = file;
        this.channel = channel;
    }

    /**
     * @throws InputException naming the file, the byte offset and the problem; a file that does
     *                        not start with a chunk is left to JMC to describe
     */
    static void check(Path file) {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            new RecordingStructure(file, channel).checkChunks(channel.size());
        } catch (IOException e) {
            throw new InputException("cannot read recording " + file + ": " + e.getMessage(), e);
        }
    }

    private void checkChunks(long length) throws IOException {
        long start = 0;
        while (start < length) {
            if (length - start < 16 || intAt(start) != MAGIC) {
                if (start == 0) {
                    return;
                }
                throw corrupt("no chunk starts at byte " + start);
            }
            long size = longAt(start + 8);
            if (size < HEADER_BYTES || size > length - start) {
                throw corrupt("the chunk at byte " + start + " declares " + size + " bytes but " + (length - start)
                        + " remain (the file is cut short or corrupt)");
            }
            checkChunk(start, size);
            start += size;
        }
    }

    private void checkChunk(long start, long size) throws IOException {
        compressed = (intAt(start + 64) & 1) != 0;
        long events = 0;
        for (long offset = HEADER_BYTES; offset < size; events++) {
            position = start + offset;
            long eventSize = readInt();
            if (eventSize <= 0 || eventSize > size - offset) {
                throw corrupt("the event at byte " + (start + offset) + " declares a size of " + eventSize);
            }
            offset += eventSize;
        }
        long constantPool = longAt(start + 16);
        long previous = size;
        for (long offset = 0, delta = constantPool; delta != 0; events--) {
            offset += delta;
            if (offset < HEADER_BYTES || offset >= previous || events < 0) {
                throw corrupt("the constant-pool chain of the chunk at byte " + start + " leads to byte " + (start
                        + offset));
            }
            previous = offset;
            position = start + offset;
            readInt(); // size
            readLong(); // type
            readLong(); // start
            readLong(); // duration
            delta = readLong();
        }
        long metadata = longAt(start + 24);
        if (metadata < HEADER_BYTES || metadata >= size) {
            throw corrupt("the metadata of the chunk at byte " + start + " is said to be at byte "
                    + (start + metadata));
        }
        position = start + metadata;
        long metadataSize = readInt();
        readLong(); // type
        readLong(); // start
        readLong(); // duration
        readLong(); // id
        long strings = readInt();
        if (strings < 0 || strings > metadataSize) {
            throw corrupt("the metadata of the chunk at byte " + start + " declares " + strings + " strings");
        }
    }

    /** An int as JMC reads it: compressed (LEB128, truncated to 32 bits) or 4 bytes big endian. */
    private long readInt() throws IOException {
        if (compressed) {
            return (int) readCompressed();
        }
        long value = intAt(position);
        position += 4;
        return value;
    }

    private long readLong() throws IOException {
        if (compressed) {
            return readCompressed();
        }
        long value = longAt(position);
        position += 8;
        return value;
    }

    private long readCompressed() throws IOException {
        long value = 0;
        for (int i = 0; i < 8; i++) {
            int b = byteAt(position++);
            value += (long) (b & 0x7f) << (7 * i);
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        return value + ((long) (byteAt(position++) & 0xff) << 56);
    }

    private int intAt(long at) throws IOException {
        return (byteAt(at) & 0xff) << 24 | (byteAt(at + 1) & 0xff) << 16 | (byteAt(at + 2) & 0xff) << 8
                | (byteAt(at + 3) & 0xff);
    }

    private long longAt(long at) throws IOException {
        return (long) intAt(at) << 32 | (intAt(at + 4) & 0xffffffffL);
    }

    private byte byteAt(long at) throws IOException {
        if (at < windowStart || at >= windowEnd) {
            window.clear();
            int read = 0;
            while (window.hasRemaining()) {
                int n = channel.read(window, at + window.position());
                if (n < 0) {
                    break;
                }
                read += n;
            }
            if (read == 0) {
                throw corrupt("it ends inside a structure at byte " + at);
            }
            windowStart = at;
            windowEnd = at + read;
        }
        return window.get((int) (at - windowStart));
    }

    private InputException corrupt(String problem) {
        return new InputException("cannot read recording " + file + ": " + problem);
    }
}
