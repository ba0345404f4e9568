// JfrBuffer: varint boundaries (including 9-byte longs), fixed-width big-endian fields, JFR
// string encodings and size-prefixed records, checked byte for byte and against an independent
// decoder.
#include <cstdint>
#include <string>
#include <vector>

#include "check.h"
#include "chunk_writer/jfr_buffer.h"
#include "jfr_test_reader.h"

using stackreq::JfrBuffer;

namespace {

std::vector<uint8_t> bytes_of(const JfrBuffer& b) {
    return std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(b.data()),
                                reinterpret_cast<const uint8_t*>(b.data()) + b.size());
}

std::vector<uint8_t> varint64(uint64_t v) {
    JfrBuffer b;
    b.put_varint64(v);
    return bytes_of(b);
}

uint64_t decode(const std::vector<uint8_t>& bytes, size_t* used) {
    jfrtest::Cursor c{bytes.data(), 0, bytes.size()};
    uint64_t v = c.varint();
    CHECK(c.ok);
    *used = c.pos;
    return v;
}

void test_varint64_bytes() {
    CHECK((varint64(0) == std::vector<uint8_t>{0x00}));
    CHECK((varint64(1) == std::vector<uint8_t>{0x01}));
    CHECK((varint64(127) == std::vector<uint8_t>{0x7f}));
    CHECK((varint64(128) == std::vector<uint8_t>{0x80, 0x01}));
    CHECK((varint64(300) == std::vector<uint8_t>{0xac, 0x02}));
    CHECK((varint64(16383) == std::vector<uint8_t>{0xff, 0x7f}));
    CHECK((varint64(16384) == std::vector<uint8_t>{0x80, 0x80, 0x01}));
    // 2^56 - 1 is the largest value of 8 bytes; 2^56 needs the 9th byte, which holds 8 bits.
    CHECK((varint64((1ull << 56) - 1) == std::vector<uint8_t>{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}));
    CHECK((varint64(1ull << 56) == std::vector<uint8_t>{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}));
    CHECK((varint64(UINT64_MAX) == std::vector<uint8_t>{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}));
    CHECK((varint64(1ull << 63) == std::vector<uint8_t>{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80}));
    JfrBuffer b;
    b.put_varint64(int64_t{-1});
    CHECK(b.size() == 9);
}

void test_varint64_round_trip() {
    std::vector<uint64_t> values;
    for (int shift = 0; shift < 64; shift++) {
        uint64_t p = 1ull << shift;
        values.push_back(p - 1);
        values.push_back(p);
        values.push_back(p + 1);
    }
    values.push_back(UINT64_MAX);
    values.push_back(static_cast<uint64_t>(INT64_MIN));
    values.push_back(static_cast<uint64_t>(INT64_MAX));
    for (uint64_t v : values) {
        std::vector<uint8_t> bytes = varint64(v);
        size_t used = 0;
        CHECK(decode(bytes, &used) == v);
        CHECK(used == bytes.size());
        CHECK(bytes.size() <= JfrBuffer::kMaxVarint64);
        CHECK(JfrBuffer::varint64_length(v) == bytes.size());
        // Only the 9th byte may lack a continuation bit without ending the value.
        for (size_t i = 0; i + 1 < bytes.size(); i++) CHECK((bytes[i] & 0x80) != 0);
        if (bytes.size() < 9) CHECK((bytes.back() & 0x80) == 0);
    }
}

void test_varint32() {
    JfrBuffer b;
    b.put_varint32(int32_t{-1});
    CHECK((bytes_of(b) == std::vector<uint8_t>{0xff, 0xff, 0xff, 0xff, 0x0f}));
    JfrBuffer c;
    c.put_varint32(uint32_t{0x7fffffff});
    CHECK((bytes_of(c) == std::vector<uint8_t>{0xff, 0xff, 0xff, 0xff, 0x07}));
    JfrBuffer d;
    d.put_varint32(int32_t{-3});  // AsyncGetCallTrace's native-frame bci
    size_t used = 0;
    CHECK(static_cast<int32_t>(decode(bytes_of(d), &used)) == -3);
    CHECK(used == 5);
}

void test_big_endian() {
    JfrBuffer b;
    b.put_be16(0x0102);
    b.put_be32(0x03040506);
    b.put_be64(0x0708090a0b0c0d0eull);
    CHECK((bytes_of(b) == std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}));
    b.patch_be64(6, 0x1122334455667788ull);
    CHECK((bytes_of(b) == std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88}));
}

std::vector<uint8_t> string_bytes(const std::string& s) {
    JfrBuffer b;
    b.put_string(s);
    return bytes_of(b);
}

void test_strings() {
    JfrBuffer n;
    n.put_null_string();
    CHECK((bytes_of(n) == std::vector<uint8_t>{0}));
    CHECK((string_bytes("") == std::vector<uint8_t>{1}));
    CHECK((string_bytes("java/lang") == std::vector<uint8_t>{3, 9, 'j', 'a', 'v', 'a', '/', 'l', 'a', 'n', 'g'}));
    // Non-ASCII goes as standard UTF-8 (encoding 3) too.
    CHECK((string_bytes("\xC3\xA9") == std::vector<uint8_t>{3, 2, 0xc3, 0xa9}));             // é U+00E9
    CHECK((string_bytes("a\xE2\x98\x83") == std::vector<uint8_t>{3, 4, 'a', 0xe2, 0x98, 0x83}));  // ☃ U+2603
    // U+1F600 as standard UTF-8 and as the JVM's modified UTF-8 (two 3-byte surrogates): one
    // 4-byte sequence either way.
    std::vector<uint8_t> emoji{3, 4, 0xf0, 0x9f, 0x98, 0x80};
    CHECK(string_bytes("\xF0\x9F\x98\x80") == emoji);
    CHECK(string_bytes("\xED\xA0\xBD\xED\xB8\x80") == emoji);
    // Modified UTF-8 NUL; bytes that are no UTF-8 at all and an unpaired surrogate become U+FFFD.
    CHECK((string_bytes("\xC0\x80") == std::vector<uint8_t>{3, 1, 0}));
    CHECK((string_bytes("\xFF" "a") == std::vector<uint8_t>{3, 4, 0xef, 0xbf, 0xbd, 'a'}));
    CHECK((string_bytes("\xE2\x98") == std::vector<uint8_t>{3, 6, 0xef, 0xbf, 0xbd, 0xef, 0xbf, 0xbd}));
    CHECK((string_bytes("\xED\xA0\xBD") == std::vector<uint8_t>{3, 3, 0xef, 0xbf, 0xbd}));
    // A symbol is UTF-8 even when empty.
    JfrBuffer empty_symbol;
    empty_symbol.put_utf8_string("");
    CHECK((bytes_of(empty_symbol) == std::vector<uint8_t>{3, 0}));
    std::string long_ascii(300, 'x');
    std::vector<uint8_t> l = string_bytes(long_ascii);
    CHECK(l.size() == 3 + 300);
    CHECK(l[0] == 3 && l[1] == 0xac && l[2] == 0x02);
}

void test_sized_records() {
    // Below 128 bytes the size is one byte, in place.
    for (size_t body : {0u, 1u, 50u, 126u}) {
        JfrBuffer b;
        b.put_u8(0xee);
        size_t start = b.begin_sized();
        for (size_t i = 0; i < body; i++) b.put_u8(static_cast<uint8_t>(i));
        b.end_sized(start);
        CHECK(b.size() == 1 + 1 + body);
        CHECK(static_cast<size_t>(b.at(1)) == body + 1);
    }
    // From 127 bytes of body on the size takes 2 (then 3, ...) bytes and counts them; the body
    // moves intact.
    for (size_t body : {127u, 128u, 200u, 16381u, 16382u, 16383u, 100000u}) {
        JfrBuffer b;
        b.put_u8(0xee);
        size_t start = b.begin_sized();
        for (size_t i = 0; i < body; i++) b.put_u8(static_cast<uint8_t>(i * 7));
        b.end_sized(start);
        std::vector<uint8_t> bytes = bytes_of(b);
        CHECK(bytes[0] == 0xee);
        std::vector<uint8_t> rest(bytes.begin() + 1, bytes.end());
        size_t used = 0;
        uint64_t size = decode(rest, &used);
        CHECK(size == rest.size());
        CHECK(size == body + used);
        for (size_t i = 0; i < body; i++) CHECK(rest[used + i] == static_cast<uint8_t>(i * 7));
    }
}

void test_growth_and_take() {
    std::string reused(100, 'z');
    JfrBuffer b(&reused);
    CHECK(b.size() == 0);
    for (uint32_t i = 0; i < 1000000; i++) b.put_varint32(i);
    std::string out = "old";
    b.take(&out);
    CHECK(b.size() == 0);
    jfrtest::Cursor c{reinterpret_cast<const uint8_t*>(out.data()), 0, out.size()};
    for (uint32_t i = 0; i < 1000000; i++) CHECK(c.varint() == i);
    CHECK(c.ok && c.pos == out.size());
}

}  // namespace

int main() {
    return run_tests("jfr_buffer_test", {test_varint64_bytes, test_varint64_round_trip, test_varint32, test_big_endian,
                                         test_strings, test_sized_records, test_growth_and_take});
}
