package io.stackreq.jfr;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Bytes in JFR's encodings, growing as they are written: integers compressed (LEB128, seven bits
 * a byte; an int takes at most 5 bytes, a long at most 9, the ninth carrying 8 bits), floating
 * point numbers as their big-endian bits, strings with an encoding byte (0 null, 1 empty, 3 UTF-8).
 *
 * <p>An int field is encoded from its 32 bits: -1 is five bytes, as the JDK writes it. Readers
 * that read an int with a 32-bit loop (async-profiler's converter) read past a field written as
 * a 64-bit -1.
 */
final class JfrOutput {
    private byte[] bytes;
    private int size;

    JfrOutput(int capacity) {
        bytes = new byte[Math.max(16, capacity)];
    }

    int size() {
        return size;
    }

    void clear() {
        size = 0;
    }

    JfrOutput putByte(int value) {
        ensure(1);
        bytes[size++] = (byte) value;
        return this;
    }

    JfrOutput putBoolean(boolean value) {
        return putByte(value ? 1 : 0);
    }

    /** A compressed int: its 32 bits unsigned. */
    JfrOutput putInt(int value) {
        long unsigned = value & 0xffffffffL;
        ensure(5);
        while ((unsigned & ~0x7fL) != 0) {
            bytes[size++] = (byte) ((unsigned & 0x7f) | 0x80);
            unsigned >>>= 7;
        }
        bytes[size++] = (byte) unsigned;
        return this;
    }

    /** A compressed long: eight groups of seven bits, then the last eight bits in a ninth byte. */
    JfrOutput putLong(long value) {
        ensure(9);
        long rest = value;
        for (int i = 0; i < 8; i++) {
            if ((rest & ~0x7fL) == 0) {
                bytes[size++] = (byte) rest;
                return this;
            }
            bytes[size++] = (byte) ((rest & 0x7f) | 0x80);
            rest >>>= 7;
        }
        bytes[size++] = (byte) rest;
        return this;
    }

    JfrOutput putDouble(double value) {
        ensure(8);
        long bits = Double.doubleToLongBits(value);
        for (int shift = 56; shift >= 0; shift -= 8) {
            bytes[size++] = (byte) (bits >>> shift);
        }
        return this;
    }

    /** null, empty, or UTF-8 inline: readers that want symbols reject pool references and Latin-1 alike. */
    JfrOutput putString(String value) {
        if (value == null) {
            return putByte(0);
        }
        if (value.isEmpty()) {
            return putByte(1);
        }
        byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        putByte(3).putInt(utf8.length);
        return putBytes(utf8, 0, utf8.length);
    }

    JfrOutput putBytes(byte[] source, int offset, int length) {
        ensure(length);
        System.arraycopy(source, offset, bytes, size, length);
        size += length;
        return this;
    }

    JfrOutput putBytes(JfrOutput other) {
        return putBytes(other.bytes, 0, other.size);
    }

    /** Eight bytes big endian, as in a chunk header. */
    JfrOutput putFixedLong(long value) {
        ensure(8);
        for (int shift = 56; shift >= 0; shift -= 8) {
            bytes[size++] = (byte) (value >>> shift);
        }
        return this;
    }

    /**
     * Writes a record that starts with its own size: {@code body} prefixed by the compressed size
     * of the whole (the size counts its own bytes), as every JFR event starts.
     */
    JfrOutput putSized(JfrOutput body) {
        int total = body.size + 1;
        while (total != body.size + intLength(total)) {
            total = body.size + intLength(total);
        }
        putInt(total);
        return putBytes(body);
    }

    /** The bytes written, for a channel to take. */
    ByteBuffer asBuffer() {
        return ByteBuffer.wrap(bytes, 0, size);
    }

    byte[] toByteArray() {
        return Arrays.copyOf(bytes, size);
    }

    static int intLength(int value) {
        long unsigned = value & 0xffffffffL;
        int length = 1;
        while ((unsigned & ~0x7fL) != 0) {
            unsigned >>>= 7;
            length++;
        }
        return length;
    }

    private void ensure(int more) {
        if (size + more > bytes.length) {
            long wanted = Math.max((long) bytes.length * 2, (long) size + more);
            if (wanted > Integer.MAX_VALUE - 16) {
                throw new IllegalStateException("a JFR record larger than 2 GB");
            }
            bytes = Arrays.copyOf(bytes, (int) wanted);
        }
    }
}
