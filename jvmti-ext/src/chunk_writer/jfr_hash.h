// Content-derived keys for the stackreq chunk's derived constant pools and metadata id.
// The JDK reader reuses a pool entry of the previous chunk when a key repeats in the same type
// (ChunkParser: getPreviousResolved), so a key may name one value only, in every chunk a
// process writes. A hash of the content gives that without state shared between chunks.
#pragma once

#include <cstddef>
#include <cstdint>

namespace stackreq {
namespace jfr {

class KeyHash {
public:
    explicit KeyHash(uint64_t seed) : h_(0xcbf29ce484222325ull ^ seed) {}
    KeyHash& bytes(const void* data, size_t n) {
        const unsigned char* p = static_cast<const unsigned char*>(data);
        for (size_t i = 0; i < n; i++) h_ = (h_ ^ p[i]) * 0x100000001b3ull;  // FNV-1a
        return *this;
    }
    // Positive, nonzero and below 2^62: 0 means null in a pool reference, and Java readers
    // hold keys in signed longs.
    uint64_t key() const {
        uint64_t x = h_;  // splitmix64 finalizer: FNV alone leaves the high bits weak
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
        x ^= x >> 31;
        x &= (1ull << 62) - 1;
        return x == 0 ? 1 : x;
    }

private:
    uint64_t h_;
};

}  // namespace jfr
}  // namespace stackreq
