#include "chunk_writer/jfr_buffer.h"

#include <string>

namespace stackreq {

namespace {

constexpr uint32_t kReplacement = 0xFFFD;

bool continuation(const unsigned char* s, size_t n, size_t i) { return i < n && (s[i] & 0xC0) == 0x80; }

// Decodes UTF-8 and the JVM's modified UTF-8 (which differs only in encoding NUL as C0 80 and
// supplementary characters as two 3-byte surrogates) into UTF-16 code units.
std::u16string to_utf16(const char* chars, size_t n) {
    const unsigned char* s = reinterpret_cast<const unsigned char*>(chars);
    std::u16string units;
    units.reserve(n);
    size_t i = 0;
    while (i < n) {
        unsigned char b = s[i];
        uint32_t cp = kReplacement;
        size_t used = 1;
        if (b < 0x80) {
            cp = b;
        } else if ((b & 0xE0) == 0xC0 && continuation(s, n, i + 1)) {
            cp = ((b & 0x1Fu) << 6) | (s[i + 1] & 0x3Fu);
            used = 2;
        } else if ((b & 0xF0) == 0xE0 && continuation(s, n, i + 1) && continuation(s, n, i + 2)) {
            cp = ((b & 0x0Fu) << 12) | ((s[i + 1] & 0x3Fu) << 6) | (s[i + 2] & 0x3Fu);
            used = 3;
        } else if ((b & 0xF8) == 0xF0 && continuation(s, n, i + 1) && continuation(s, n, i + 2) &&
                   continuation(s, n, i + 3)) {
            cp = ((b & 0x07u) << 18) | ((s[i + 1] & 0x3Fu) << 12) | ((s[i + 2] & 0x3Fu) << 6) | (s[i + 3] & 0x3Fu);
            used = 4;
            if (cp < 0x10000 || cp > 0x10FFFF) cp = kReplacement;
        }
        if (cp >= 0x10000) {
            cp -= 0x10000;
            units.push_back(static_cast<char16_t>(0xD800 + (cp >> 10)));
            units.push_back(static_cast<char16_t>(0xDC00 + (cp & 0x3FF)));
        } else {
            units.push_back(static_cast<char16_t>(cp));
        }
        i += used;
    }
    return units;
}

// UTF-16 code units as standard UTF-8: a surrogate pair as one 4-byte sequence, an unpaired
// surrogate as U+FFFD.
std::string to_utf8(const std::u16string& units) {
    std::string out;
    out.reserve(units.size() * 3);
    for (size_t i = 0; i < units.size(); i++) {
        uint32_t cp = units[i];
        if (cp >= 0xD800 && cp <= 0xDBFF && i + 1 < units.size() && units[i + 1] >= 0xDC00 && units[i + 1] <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (units[i + 1] - 0xDC00);
            i++;
        } else if (cp >= 0xD800 && cp <= 0xDFFF) {
            cp = kReplacement;
        }
        if (cp < 0x80) {
            out.push_back(static_cast<char>(cp));
        } else if (cp < 0x800) {
            out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else if (cp < 0x10000) {
            out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else {
            out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        }
    }
    return out;
}

}  // namespace

void JfrBuffer::grow(size_t needed) {
    size_t capacity = data_.size() < 4096 ? 4096 : data_.size() * 2;
    while (capacity < needed) capacity *= 2;
    data_.resize(capacity);
}

void JfrBuffer::put_be16(uint16_t v) {
    uint8_t bytes[2] = {static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v)};
    put_bytes(bytes, sizeof(bytes));
}

void JfrBuffer::put_be32(uint32_t v) {
    uint8_t bytes[4];
    for (int i = 0; i < 4; i++) bytes[i] = static_cast<uint8_t>(v >> (24 - 8 * i));
    put_bytes(bytes, sizeof(bytes));
}

void JfrBuffer::put_be64(uint64_t v) {
    ensure(8);
    patch_be64(pos_, v);
    pos_ += 8;
}

void JfrBuffer::patch_be64(size_t offset, uint64_t v) {
    for (int i = 0; i < 8; i++) data_[offset + i] = static_cast<char>(v >> (56 - 8 * i));
}

void JfrBuffer::put_utf8_string(const char* s, size_t n) {
    bool ascii = true;
    for (size_t i = 0; i < n && ascii; i++) ascii = static_cast<unsigned char>(s[i]) < 0x80;
    put_u8(kStringUtf8);
    if (ascii) {
        put_varint32(static_cast<uint32_t>(n));
        put_bytes(s, n);
        return;
    }
    std::string utf8 = to_utf8(to_utf16(s, n));
    put_varint32(static_cast<uint32_t>(utf8.size()));
    put_bytes(utf8.data(), utf8.size());
}

void JfrBuffer::end_sized_long(size_t start) {
    size_t body = pos_ - start - 1;
    size_t length = 2;
    while (varint64_length(body + length) != length) length++;
    ensure(length - 1);
    std::memmove(&data_[start + length], &data_[start + 1], body);
    encode_varint64(body + length, reinterpret_cast<uint8_t*>(&data_[start]));
    pos_ += length - 1;
}

}  // namespace stackreq
