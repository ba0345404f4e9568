package io.stackreq.reliability.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

import io.stackreq.reliability.app.Chaos;

/**
 * What libchaos.so recorded per request id (PREFIX.bin), its counters (PREFIX.txt) and, when the
 * results were written at VMDeath, PREFIX.death.
 */
public final class ChaosResults {
    private final int count;
    private final byte[] rc;
    private final int[] tid;
    private final short[] mutation;
    public final Map<String, String> counters;
    public final Map<String, String> death;

    private ChaosResults(int count, byte[] rc, int[] tid, short[] mutation, Map<String, String> counters,
            Map<String, String> death) {
        this.count = count;
        this.rc = rc;
        this.tid = tid;
        this.mutation = mutation;
        this.counters = counters;
        this.death = death;
    }

    public static ChaosResults read(Path prefix) {
        Path bin = Path.of(prefix + ".bin");
        try (FileChannel channel = FileChannel.open(bin)) {
            ByteBuffer header = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
            channel.read(header, 0);
            header.flip();
            byte[] magic = new byte[8];
            header.get(magic);
            if (!new String(magic, StandardCharsets.US_ASCII).equals("CHAOS001")) {
                throw new IllegalStateException(bin + " is not a chaos results file");
            }
            long n = header.getLong();
            if (n < 0 || n > Integer.MAX_VALUE - 2) {
                throw new IllegalStateException(bin + ": bad count " + n);
            }
            int count = (int) n;
            ByteBuffer body = ByteBuffer.allocate(count * 7).order(ByteOrder.LITTLE_ENDIAN);
            long position = 16;
            while (body.hasRemaining()) {
                int read = channel.read(body, position);
                if (read < 0) {
                    throw new IllegalStateException(bin + " is cut short");
                }
                position += read;
            }
            body.flip();
            byte[] rc = new byte[count + 1];
            body.get(rc, 1, count);
            int[] tid = new int[count + 1];
            for (int i = 1; i <= count; i++) {
                tid[i] = body.getInt();
            }
            short[] mutation = new short[count + 1];
            for (int i = 1; i <= count; i++) {
                mutation[i] = body.getShort();
            }
            return new ChaosResults(count, rc, tid, mutation, keyValues(Path.of(prefix + ".txt")),
                    Files.exists(Path.of(prefix + ".death")) ? keyValues(Path.of(prefix + ".death")) : Map.of());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Map<String, String> keyValues(Path file) throws IOException {
        Map<String, String> values = new LinkedHashMap<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                values.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return values;
    }

    /** Ids 1..count() are recorded. */
    public int count() {
        return count;
    }

    /** Return code of request id, or -1 when it had not returned when the results were written. */
    public int rc(long id) {
        int value = rc[(int) id] & 0xff;
        return value == 0 ? -1 : value - 1;
    }

    public int tid(long id) {
        return tid[(int) id];
    }

    public int mutation(long id) {
        return mutation[(int) id] & 0xffff;
    }

    public boolean fuzzed(long id) {
        return (mutation(id) & Chaos.FUZZED) != 0;
    }

    public boolean atDeath(long id) {
        return (mutation(id) & Chaos.AT_DEATH) != 0;
    }

    /** "pc=random sp=keep fp=zero" for a fuzzed id. */
    public String describeMutation(long id) {
        int m = mutation(id);
        if ((m & Chaos.FUZZED) == 0) {
            return "not fuzzed";
        }
        return "pc=" + Chaos.MUTATIONS[m & 15] + " sp=" + Chaos.MUTATIONS[(m >> 4) & 15] + " fp="
                + Chaos.MUTATIONS[(m >> 8) & 15];
    }

    /** Number of ids per return code (-1: not returned). */
    public Map<Integer, Long> rcHistogram() {
        Map<Integer, Long> histogram = new TreeMap<>();
        for (long id = 1; id <= count; id++) {
            histogram.merge(rc(id), 1L, Long::sum);
        }
        return histogram;
    }

    public long counter(String key) {
        return Long.parseLong(counters.getOrDefault(key, "0"));
    }

    public long countWithRc(int code) {
        long n = 0;
        for (long id = 1; id <= count; id++) {
            n += rc(id) == code ? 1 : 0;
        }
        return n;
    }

    @Override
    public String toString() {
        return "chaos results: " + count + " ids, rc histogram " + rcHistogram() + ", counters " + counters
                + (death.isEmpty() ? "" : ", death " + death);
    }
}
