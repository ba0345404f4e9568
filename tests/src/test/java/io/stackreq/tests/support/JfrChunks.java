package io.stackreq.tests.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The raw layout of each chunk of a JFR file, as readers that do not go by the metadata see it:
 * the declared types with their fields in order, how each {@code jdk.types.Symbol} string is
 * encoded, and the {@code jdk.types.FrameType} pool's keys. It follows the chunk format (header,
 * metadata event, the checkpoint chain) and reads every constant-pool entry by the metadata, so
 * that readers which cannot run here (Grafana Pyroscope's jfr-parser) can be checked against the
 * rules they are known to apply.
 */
public final class JfrChunks {
    private JfrChunks() {
    }

    public record Field(String name, long type, boolean constantPool, boolean array) {
    }

    public record Type(long id, String name, String superType, boolean simple, List<Field> fields) {
        public List<String> fieldNames() {
            return fields.stream().map(Field::name).toList();
        }
    }

    /** One chunk: where it starts, its types, the encodings of its symbols and its frame types. */
    public record Chunk(long offset, Map<Long, Type> types, Map<Integer, Integer> symbolEncodings,
            Map<Long, String> frameTypes) {
        public Type type(String name) {
            return types.values().stream().filter(t -> t.name.equals(name)).findFirst().orElse(null);
        }
    }

    /** Every complete chunk of the file; reading stops at one whose header says it is unfinished. */
    public static List<Chunk> read(Path file) {
        ByteBuffer bytes;
        try {
            bytes = ByteBuffer.wrap(Files.readAllBytes(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Chunk> chunks = new ArrayList<>();
        int start = 0;
        while (start + 68 <= bytes.limit()) {
            if (bytes.getInt(start) != 0x464c5200) {
                throw new AssertionError(file + ": no chunk header at " + start);
            }
            long size = bytes.getLong(start + 8);
            long checkpoint = bytes.getLong(start + 16);
            long metadata = bytes.getLong(start + 24);
            if (size <= 0 || checkpoint == 0 || metadata == 0 || start + size > bytes.limit()) {
                break;
            }
            Reader reader = new Reader(bytes);
            Map<Long, Type> types = reader.metadata(start + (int) metadata);
            Chunk chunk = new Chunk(start, types, new HashMap<>(), new LinkedHashMap<>());
            reader.checkpoints(start + (int) checkpoint, chunk);
            chunks.add(chunk);
            start += (int) size;
        }
        return chunks;
    }

    private static final class Reader {
        private final ByteBuffer in;
        private Map<Long, Type> types;

        Reader(ByteBuffer in) {
            this.in = in.duplicate();
        }

        Map<Long, Type> metadata(int at) {
            in.position(at);
            varlong(); // size
            varlong(); // type 0
            varlong(); // start
            varlong(); // duration
            varlong(); // metadata id
            String[] strings = new String[(int) varlong()];
            for (int i = 0; i < strings.length; i++) {
                strings[i] = string();
            }
            types = new LinkedHashMap<>();
            Element root = element(strings);
            for (Element metadata : root.children) {
                if (!metadata.name.equals("metadata")) {
                    continue;
                }
                for (Element klass : metadata.children) {
                    List<Field> fields = new ArrayList<>();
                    for (Element field : klass.children) {
                        if (field.name.equals("field")) {
                            fields.add(new Field(field.attributes.get("name"),
                                    Long.parseLong(field.attributes.get("class")),
                                    "true".equals(field.attributes.get("constantPool")),
                                    field.attributes.containsKey("dimension")));
                        }
                    }
                    long id = Long.parseLong(klass.attributes.get("id"));
                    types.put(id, new Type(id, klass.attributes.get("name"), klass.attributes.get("superType"),
                            "true".equals(klass.attributes.get("simpleType")), fields));
                }
            }
            return types;
        }

        private record Element(String name, Map<String, String> attributes, List<Element> children) {
        }

        private Element element(String[] strings) {
            String name = strings[(int) varlong()];
            Map<String, String> attributes = new HashMap<>();
            for (long n = varlong(); n > 0; n--) {
                attributes.put(strings[(int) varlong()], strings[(int) varlong()]);
            }
            List<Element> children = new ArrayList<>();
            for (long n = varlong(); n > 0; n--) {
                children.add(element(strings));
            }
            return new Element(name, attributes, children);
        }

        void checkpoints(int at, Chunk chunk) {
            long delta;
            do {
                in.position(at);
                varlong(); // size
                varlong(); // type 1
                varlong(); // start
                varlong(); // duration
                delta = varlong();
                in.get(); // checkpoint kind
                for (long pools = varlong(); pools > 0; pools--) {
                    long typeId = varlong();
                    Type type = types.get(typeId);
                    if (type == null) {
                        throw new AssertionError("constant pool of undeclared type " + typeId + " in the chunk at "
                                + chunk.offset);
                    }
                    for (long entries = varlong(); entries > 0; entries--) {
                        long key = varlong();
                        if (type.name.equals("jdk.types.Symbol")) {
                            chunk.symbolEncodings.merge(in.get(in.position()) & 0xff, 1, Integer::sum);
                        }
                        if (type.name.equals("jdk.types.FrameType")) {
                            chunk.frameTypes.put(key, string());
                        } else {
                            value(type);
                        }
                    }
                }
                at += (int) delta;
            } while (delta != 0);
        }

        private void value(Type type) {
            if (type.name.equals("java.lang.String")) {
                string();
                return;
            }
            for (Field field : type.fields) {
                for (long n = field.array ? varlong() : 1; n > 0; n--) {
                    if (field.constantPool) {
                        varlong();
                    } else {
                        primitiveOrStruct(types.get(field.type));
                    }
                }
            }
        }

        private void primitiveOrStruct(Type type) {
            switch (type.name) {
                case "boolean", "byte" -> in.get();
                case "char", "short", "int", "long" -> varlong();
                case "float" -> in.getFloat();
                case "double" -> in.getDouble();
                default -> value(type);
            }
        }

        private String string() {
            int encoding = in.get();
            switch (encoding) {
                case 0:
                    return null;
                case 1:
                    return "";
                case 2:
                    return "#" + varlong();
                case 3, 5: {
                    byte[] text = new byte[(int) varlong()];
                    in.get(text);
                    return new String(text, encoding == 3 ? java.nio.charset.StandardCharsets.UTF_8
                            : java.nio.charset.StandardCharsets.ISO_8859_1);
                }
                case 4: {
                    StringBuilder text = new StringBuilder();
                    for (long n = varlong(); n > 0; n--) {
                        text.append((char) varlong());
                    }
                    return text.toString();
                }
                default:
                    throw new AssertionError("string encoding " + encoding + " at " + (in.position() - 1));
            }
        }

        private long varlong() {
            long value = 0;
            for (int shift = 0; shift < 56; shift += 7) {
                byte b = in.get();
                value |= (b & 0x7fL) << shift;
                if (b >= 0) {
                    return value;
                }
            }
            return value | (in.get() & 0xffL) << 56;
        }
    }
}
