// The byte buffer a JFR chunk is serialized into: big-endian fixed-width fields for the chunk
// header, LEB128 varints for everything else (JFR "compressed integers"), JFR string encodings,
// and size-prefixed events. Grows geometrically and writes through a raw cursor so that an
// event costs a handful of stores.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace stackreq {

class JfrBuffer {
public:
    // Longest varint of a 64-bit value: eight 7-bit groups and a ninth byte holding 8 bits.
    static constexpr size_t kMaxVarint64 = 9;
    static constexpr size_t kMaxVarint32 = 5;

    JfrBuffer() = default;
    // Starts from out's storage (its contents are discarded) so no reallocation is repeated
    // when a caller reuses one string for every chunk.
    explicit JfrBuffer(std::string* reuse) { data_.swap(*reuse); data_.clear(); }

    size_t size() const { return pos_; }
    const char* data() const { return data_.data(); }
    uint8_t at(size_t offset) const { return static_cast<uint8_t>(data_[offset]); }
    // Moves the written bytes into out; the buffer is empty afterwards.
    void take(std::string* out) {
        data_.resize(pos_);
        out->swap(data_);
        data_.clear();
        pos_ = 0;
    }

    // Makes room for n more bytes; the put_* functions below call it, raw users call it once
    // for a whole event.
    void ensure(size_t n) {
        if (pos_ + n > data_.size()) grow(pos_ + n);
    }

    void put_u8(uint8_t v) {
        ensure(1);
        data_[pos_++] = static_cast<char>(v);
    }
    void put_bool(bool v) { put_u8(v ? 1 : 0); }
    void put_bytes(const void* bytes, size_t n) {
        ensure(n);
        std::memcpy(&data_[pos_], bytes, n);
        pos_ += n;
    }

    // Unsigned LEB128, 7 bits per byte, low group first; the ninth byte of a 64-bit value
    // carries 8 bits and no continuation bit, so no value needs more than 9 bytes.
    void put_varint64(uint64_t v) {
        ensure(kMaxVarint64);
        char* p = &data_[pos_];
        pos_ += encode_varint64(v, reinterpret_cast<uint8_t*>(p));
    }
    void put_varint64(int64_t v) { put_varint64(static_cast<uint64_t>(v)); }
    // JFR int/short/char fields are varints of the 32-bit pattern: -1 is 5 bytes, not 9, and
    // readers that read an int with at most 5 bytes (JMC) stay aligned.
    void put_varint32(uint32_t v) {
        ensure(kMaxVarint32);
        char* p = &data_[pos_];
        pos_ += encode_varint32(v, reinterpret_cast<uint8_t*>(p));
    }
    void put_varint32(int32_t v) { put_varint32(static_cast<uint32_t>(v)); }

    void put_be16(uint16_t v);
    void put_be32(uint32_t v);
    void put_be64(uint64_t v);
    void patch_be64(size_t offset, uint64_t v);

    // A JFR string: encoding 0 for null, 1 for "", else 3 (UTF-8). The JVM's names are modified
    // UTF-8 (surrogates as separate 3-byte sequences, NUL as C0 80), which a plain UTF-8 decoder
    // would garble, so non-ASCII text is re-encoded as standard UTF-8; invalid sequences and
    // unpaired surrogates become U+FFFD. UTF-8 everywhere, because readers differ on the other
    // encodings: async-profiler's converter takes only 3 for a symbol, Pyroscope's jfr-parser
    // reads 4 (UTF-16) unit by unit.
    void put_null_string() { put_u8(kStringNull); }
    void put_string_reference(uint64_t key) {
        put_u8(kStringPoolReference);
        put_varint64(key);
    }
    void put_string(const char* s, size_t n) {
        if (n == 0) {
            put_u8(kStringEmpty);
        } else {
            put_utf8_string(s, n);
        }
    }
    void put_string(const std::string& s) { put_string(s.data(), s.size()); }
    // Encoding 3 even for "" (a zero length), as a jdk.types.Symbol must be for async-profiler.
    void put_utf8_string(const char* s, size_t n);
    void put_utf8_string(const std::string& s) { put_utf8_string(s.data(), s.size()); }

    // Size-prefixed records (events): begin_sized() reserves one byte, end_sized() writes the
    // varint size (which counts itself) there, moving the body only when it is 127 bytes or
    // more, which no stackreq event reaches but the metadata and checkpoint events do.
    size_t begin_sized() {
        put_u8(0);
        return pos_ - 1;
    }
    void end_sized(size_t start) {
        size_t n = pos_ - start;
        if (n < 0x80) {
            data_[start] = static_cast<char>(n);
        } else {
            end_sized_long(start);
        }
    }

    static size_t encode_varint64(uint64_t v, uint8_t* p) {
        for (size_t i = 0; i < 8; i++) {
            if (v < 0x80) {
                p[i] = static_cast<uint8_t>(v);
                return i + 1;
            }
            p[i] = static_cast<uint8_t>(v | 0x80);
            v >>= 7;
        }
        p[8] = static_cast<uint8_t>(v);
        return 9;
    }
    static size_t encode_varint32(uint32_t v, uint8_t* p) {
        size_t i = 0;
        while (v >= 0x80) {
            p[i++] = static_cast<uint8_t>(v | 0x80);
            v >>= 7;
        }
        p[i++] = static_cast<uint8_t>(v);
        return i;
    }
    static size_t varint64_length(uint64_t v) {
        size_t n = 1;
        while (v >= 0x80 && n < 9) {
            v >>= 7;
            n++;
        }
        return n;
    }

    static constexpr uint8_t kStringNull = 0;
    static constexpr uint8_t kStringEmpty = 1;
    static constexpr uint8_t kStringPoolReference = 2;  // then the key in the java.lang.String pool
    static constexpr uint8_t kStringUtf8 = 3;

private:
    void grow(size_t needed);
    void end_sized_long(size_t start);

    std::string data_;  // data_.size() is the capacity in use; pos_ the bytes written
    size_t pos_ = 0;
};

}  // namespace stackreq
