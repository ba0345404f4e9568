package io.stackreq.jfr;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Reads JFR's compressed encodings from a buffer holding one chunk (or part of one). Every read
 * is bounded by the buffer: a value running past it throws {@link CorruptChunkException}.
 */
final class JfrInput {
    private final ByteBuffer buffer;

    JfrInput(ByteBuffer buffer) {
        this.buffer = buffer;
    }

    int position() {
        return buffer.position();
    }

    void position(int position) {
        if (position < 0 || position > buffer.limit()) {
            throw new CorruptChunkException("a position outside the chunk (" + position + ")");
        }
        buffer.position(position);
    }

    int readByte() {
        need(1);
        return buffer.get() & 0xff;
    }

    long readLong() {
        long value = 0;
        for (int i = 0; i < 8; i++) {
            int b = readByte();
            value |= (long) (b & 0x7f) << (7 * i);
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        return value | (long) readByte() << 56;
    }

    int readInt() {
        return (int) readLong();
    }

    /** A size or count: must fit the bytes that remain (each element takes at least one byte). */
    int readCount() {
        long count = readLong();
        if (count < 0 || count > buffer.remaining()) {
            throw new CorruptChunkException("a count of " + count + " where " + buffer.remaining() + " bytes remain");
        }
        return (int) count;
    }

    String readString() {
        int encoding = readByte();
        switch (encoding) {
            case 0:
                return null;
            case 1:
                return "";
            case 3:
            case 5: {
                int length = readCount();
                byte[] text = new byte[length];
                buffer.get(text);
                return new String(text, encoding == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
            }
            case 4: {
                int length = readCount();
                char[] chars = new char[length];
                for (int i = 0; i < length; i++) {
                    chars[i] = (char) readInt();
                }
                return new String(chars);
            }
            default:
                throw new CorruptChunkException("a string of encoding " + encoding + " where only inline ones belong");
        }
    }

    private void need(int bytes) {
        if (buffer.remaining() < bytes) {
            throw new CorruptChunkException("a value runs past the end of its record");
        }
    }
}
