package io.stackreq.jfr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.List;

import org.junit.jupiter.api.Test;

/** JFR's compressed integers and strings, as {@link JfrOutput} writes and {@link JfrInput} reads them. */
class JfrEncodingTest {

    @Test
    void anIntIsAtMostFiveBytesFromItsThirtyTwoBits() {
        assertArrayEquals(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f},
                new JfrOutput(8).putInt(-1).toByteArray());
        assertArrayEquals(new byte[] {0x7f}, new JfrOutput(8).putInt(127).toByteArray());
        assertArrayEquals(new byte[] {(byte) 0x80, 0x01}, new JfrOutput(8).putInt(128).toByteArray());
    }

    @Test
    void aLongIsAtMostNineBytesTheNinthCarryingEightBits() {
        byte[] minusOne = new JfrOutput(16).putLong(-1).toByteArray();
        assertEquals(9, minusOne.length);
        assertEquals((byte) 0xff, minusOne[8]);
    }

    @Test
    void valuesReadBackAsWritten() {
        List<Long> longs = List.of(0L, 1L, 127L, 128L, -1L, Long.MIN_VALUE, Long.MAX_VALUE, 1L << 56, (1L << 56) - 1);
        JfrOutput out = new JfrOutput(4);
        for (long value : longs) {
            out.putLong(value);
        }
        out.putString(null).putString("").putString("größe ✓");
        JfrInput in = new JfrInput(ByteBuffer.wrap(out.toByteArray()));
        for (long value : longs) {
            assertEquals(value, in.readLong());
        }
        assertEquals(null, in.readString());
        assertEquals("", in.readString());
        assertEquals("größe ✓", in.readString());
        assertThrows(CorruptChunkException.class, in::readByte, "no read past the end");
    }

    @Test
    void aSizedRecordCountsItsOwnSizeBytes() {
        JfrOutput body = new JfrOutput(200);
        for (int i = 0; i < 126; i++) {
            body.putByte(i);
        }
        // 126 bytes and one size byte: 127 fits one byte; 127 bytes would need two.
        assertEquals(127, new JfrInput(new JfrOutput(8).putSized(body).asBuffer()).readInt());
        body.putByte(0);
        JfrOutput record = new JfrOutput(8).putSized(body);
        assertEquals(129, new JfrInput(record.asBuffer()).readInt());
        assertEquals(129, record.size());
    }
}
