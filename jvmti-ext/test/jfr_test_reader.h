// A small JFR chunk reader for the native tests, written from the format description (not from
// the writer's code): header, the event stream, the metadata element tree, and values decoded
// generically by the metadata, so a test sees what a reader that follows the metadata sees.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace jfrtest {

struct Cursor {
    Cursor(const uint8_t* bytes, size_t from, size_t to) : p(bytes), pos(from), end(to) {}

    const uint8_t* p;
    size_t pos;
    size_t end;
    bool ok = true;

    uint8_t byte() {
        if (pos >= end) {
            ok = false;
            return 0;
        }
        return p[pos++];
    }
    uint64_t varint() {
        uint64_t v = 0;
        for (int i = 0; i < 8; i++) {
            uint8_t b = byte();
            v |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
            if ((b & 0x80) == 0) return v;
        }
        return v | (static_cast<uint64_t>(byte()) << 56);
    }
    uint64_t be(int bytes) {
        uint64_t v = 0;
        for (int i = 0; i < bytes; i++) v = (v << 8) | byte();
        return v;
    }
    // Returns UTF-8 for encodings 3 and 4 (code units < 0x800 and surrogates as in CESU, enough
    // for tests that compare with what they wrote), sets null for encoding 0.
    std::string string(bool* null) {
        *null = false;
        uint8_t encoding = byte();
        if (encoding == 0) {
            *null = true;
            return "";
        }
        if (encoding == 1) return "";
        if (encoding == 2) {
            pool_key = varint();
            return "";
        }
        std::string s;
        size_t n = static_cast<size_t>(varint());
        if (encoding == 3 || encoding == 5) {
            for (size_t i = 0; i < n; i++) s.push_back(static_cast<char>(byte()));
            return s;
        }
        if (encoding == 4) {
            for (size_t i = 0; i < n; i++) units.push_back(static_cast<uint16_t>(varint()));
            return "<utf16>";
        }
        ok = false;
        return "";
    }
    std::vector<uint16_t> units;  // the code units of the last encoding-4 string
    uint64_t pool_key = 0;        // the key of the last encoding-2 string (a java.lang.String pool reference)
};

struct Element {
    std::string name;
    std::map<std::string, std::string> attributes;
    std::vector<Element> children;
    std::string attribute(const std::string& key) const {
        auto found = attributes.find(key);
        return found == attributes.end() ? "" : found->second;
    }
};

struct Field {
    std::string name;
    uint64_t type;
    bool constant_pool;
    bool array;
    std::vector<Element> annotations;
};

struct Class {
    uint64_t id;
    std::string name;
    std::string super_type;
    bool simple;
    std::vector<Field> fields;
    std::vector<Element> annotations;
};

// A decoded value: a primitive (number/flag), a string, a pool key, a struct or an array.
struct Value {
    uint64_t number = 0;
    std::string text;
    bool null = false;
    std::vector<uint16_t> units;  // set when text came as UTF-16 code units
    std::vector<Value> items;     // struct fields in order, or array elements
};

struct Event {
    size_t offset;
    uint64_t size;
    uint64_t type;
};

struct Chunk {
    bool ok = false;
    std::string error;
    uint16_t major = 0, minor = 0;
    uint64_t size = 0, checkpoint_offset = 0, metadata_offset = 0;
    int64_t start_nanos = 0, duration_nanos = 0, start_ticks = 0, ticks_per_second = 0;
    uint8_t tail[4] = {};
    std::vector<Event> events;  // every record from the header on, in file order
    uint64_t metadata_id = 0;
    Element root;
    std::map<uint64_t, Class> classes;
    std::map<std::string, uint64_t> class_ids;
    // pools[type][key] = value
    std::map<uint64_t, std::map<uint64_t, Value>> pools;
    std::map<uint64_t, uint64_t> pool_counts;  // type -> entries, as the checkpoint declared
    std::vector<std::pair<uint64_t, Value>> event_values;  // (type, fields) of events other than 0 and 1

    const Class* by_name(const std::string& name) const {
        auto found = class_ids.find(name);
        return found == class_ids.end() ? nullptr : &classes.at(found->second);
    }
};

inline Element read_element(Cursor& c, const std::vector<std::string>& strings) {
    Element e;
    auto str = [&](uint64_t i) { return i < strings.size() ? strings[i] : (c.ok = false, std::string()); };
    e.name = str(c.varint());
    uint64_t attributes = c.varint();
    for (uint64_t i = 0; i < attributes && c.ok; i++) {
        std::string key = str(c.varint());
        e.attributes[key] = str(c.varint());
    }
    uint64_t children = c.varint();
    for (uint64_t i = 0; i < children && c.ok; i++) e.children.push_back(read_element(c, strings));
    return e;
}

inline Value read_value(Cursor& c, const Chunk& chunk, uint64_t type, bool constant_pool);

inline Value read_struct(Cursor& c, const Chunk& chunk, const Class& klass) {
    Value v;
    for (const Field& f : klass.fields) {
        if (f.array) {
            Value array;
            uint64_t n = c.varint();
            for (uint64_t i = 0; i < n && c.ok; i++) {
                array.items.push_back(read_value(c, chunk, f.type, f.constant_pool));
            }
            v.items.push_back(array);
        } else {
            v.items.push_back(read_value(c, chunk, f.type, f.constant_pool));
        }
    }
    return v;
}

inline Value read_value(Cursor& c, const Chunk& chunk, uint64_t type, bool constant_pool) {
    Value v;
    if (constant_pool) {
        v.number = c.varint();
        return v;
    }
    auto found = chunk.classes.find(type);
    if (found == chunk.classes.end()) {
        c.ok = false;
        return v;
    }
    const std::string& name = found->second.name;
    if (name == "boolean" || name == "byte") {
        v.number = c.byte();
    } else if (name == "int" || name == "long" || name == "short" || name == "char") {
        v.number = c.varint();
    } else if (name == "java.lang.String") {
        c.units.clear();
        c.pool_key = 0;
        v.text = c.string(&v.null);
        v.units = c.units;
        v.number = c.pool_key;
    } else {
        v = read_struct(c, chunk, found->second);
    }
    return v;
}

inline bool fail(Chunk* chunk, const std::string& why) {
    chunk->error = why;
    return false;
}

inline bool parse_metadata(Chunk* chunk, Cursor& c) {
    uint64_t count = c.varint();
    std::vector<std::string> strings;
    for (uint64_t i = 0; i < count && c.ok; i++) {
        bool null;
        strings.push_back(c.string(&null));
    }
    chunk->root = read_element(c, strings);
    if (!c.ok) return fail(chunk, "metadata does not parse");
    for (const Element& part : chunk->root.children) {
        if (part.name != "metadata") continue;
        for (const Element& k : part.children) {
            if (k.name != "class") return fail(chunk, "metadata child " + k.name);
            Class klass;
            klass.id = std::strtoull(k.attribute("id").c_str(), nullptr, 10);
            klass.name = k.attribute("name");
            klass.super_type = k.attribute("superType");
            klass.simple = k.attribute("simpleType") == "true";
            for (const Element& child : k.children) {
                if (child.name == "annotation") {
                    klass.annotations.push_back(child);
                } else if (child.name == "field") {
                    Field f{child.attribute("name"), std::strtoull(child.attribute("class").c_str(), nullptr, 10),
                            child.attribute("constantPool") == "true", child.attribute("dimension") == "1",
                            child.children};
                    klass.fields.push_back(f);
                }
            }
            if (chunk->classes.count(klass.id) != 0) return fail(chunk, "class id used twice: " + klass.name);
            chunk->class_ids[klass.name] = klass.id;
            chunk->classes[klass.id] = klass;
        }
    }
    return true;
}

inline bool parse_checkpoint(Chunk* chunk, Cursor& c) {
    c.varint();  // start
    c.varint();  // duration
    if (c.varint() != 0) return fail(chunk, "checkpoint delta is not 0");
    c.byte();    // checkpoint type
    uint64_t pools = c.varint();
    for (uint64_t i = 0; i < pools && c.ok; i++) {
        uint64_t type = c.varint();
        uint64_t count = c.varint();
        auto klass = chunk->classes.find(type);
        if (klass == chunk->classes.end()) return fail(chunk, "pool of undeclared type " + std::to_string(type));
        if (count == 0) return fail(chunk, "empty pool " + klass->second.name);
        chunk->pool_counts[type] += count;
        for (uint64_t j = 0; j < count && c.ok; j++) {
            uint64_t key = c.varint();
            if (chunk->pools[type].count(key) != 0) return fail(chunk, "key twice in pool " + klass->second.name);
            // A pool of a primitive type (java.lang.String) holds bare values, others structs.
            chunk->pools[type][key] = klass->second.fields.empty() ? read_value(c, *chunk, type, false)
                                                                   : read_struct(c, *chunk, klass->second);
        }
    }
    return c.ok || fail(chunk, "checkpoint does not parse");
}

inline Chunk parse(const std::string& bytes) {
    Chunk chunk;
    const uint8_t* p = reinterpret_cast<const uint8_t*>(bytes.data());
    Cursor h{p, 0, bytes.size()};
    if (bytes.size() < 68 || h.be(4) != 0x464C5200) {
        fail(&chunk, "no chunk header");
        return chunk;
    }
    chunk.major = static_cast<uint16_t>(h.be(2));
    chunk.minor = static_cast<uint16_t>(h.be(2));
    chunk.size = h.be(8);
    chunk.checkpoint_offset = h.be(8);
    chunk.metadata_offset = h.be(8);
    chunk.start_nanos = static_cast<int64_t>(h.be(8));
    chunk.duration_nanos = static_cast<int64_t>(h.be(8));
    chunk.start_ticks = static_cast<int64_t>(h.be(8));
    chunk.ticks_per_second = static_cast<int64_t>(h.be(8));
    for (uint8_t& b : chunk.tail) b = h.byte();
    if (chunk.size != bytes.size()) {
        fail(&chunk, "chunk size " + std::to_string(chunk.size) + " != " + std::to_string(bytes.size()));
        return chunk;
    }
    // Pass 1: the records must tile the chunk exactly.
    size_t pos = 68;
    while (pos < bytes.size()) {
        Cursor c{p, pos, bytes.size()};
        uint64_t size = c.varint();
        uint64_t type = c.varint();
        if (!c.ok || size == 0 || pos + size > bytes.size()) {
            fail(&chunk, "bad record at " + std::to_string(pos));
            return chunk;
        }
        chunk.events.push_back({pos, size, type});
        pos += size;
    }
    // Pass 2: metadata first (as readers do), then the checkpoint, then the events. The first two must each be the
    // one record of its type, at the header's offset, and parse must read it to its last byte.
    auto read_single = [&](uint64_t type, uint64_t offset, const std::string& what, auto parse) {
        bool seen = false;
        for (const Event& e : chunk.events) {
            if (e.type != type) continue;
            if (e.offset != offset || seen) {
                fail(&chunk, what + " event not (only) at the header's offset");
                return false;
            }
            seen = true;
            Cursor c{p, e.offset, e.offset + e.size};
            c.varint();  // size
            c.varint();  // type
            if (!parse(c)) return false;
            if (c.pos != e.offset + e.size) {
                fail(&chunk, what + " event size does not match its content");
                return false;
            }
        }
        if (!seen) fail(&chunk, what + " event missing");
        return seen;
    };
    bool metadata_read = read_single(0, chunk.metadata_offset, "metadata", [&](Cursor& c) {
        c.varint();  // start
        c.varint();  // duration
        chunk.metadata_id = c.varint();
        return parse_metadata(&chunk, c);
    });
    if (!metadata_read) return chunk;
    auto parse_checkpoint_event = [&](Cursor& c) { return parse_checkpoint(&chunk, c); };
    if (!read_single(1, chunk.checkpoint_offset, "checkpoint", parse_checkpoint_event)) return chunk;
    for (const Event& e : chunk.events) {
        if (e.type <= 1) continue;
        auto klass = chunk.classes.find(e.type);
        if (klass == chunk.classes.end() || klass->second.super_type != "jdk.jfr.Event") {
            fail(&chunk, "event of undeclared type " + std::to_string(e.type));
            return chunk;
        }
        Cursor c{p, e.offset, e.offset + e.size};
        c.varint();
        c.varint();
        Value fields = read_struct(c, chunk, klass->second);
        if (!c.ok || c.pos != e.offset + e.size) {
            fail(&chunk, "event size does not match its fields at " + std::to_string(e.offset));
            return chunk;
        }
        chunk.event_values.push_back({e.type, fields});
    }
    chunk.ok = true;
    return chunk;
}

}  // namespace jfrtest
