// FNV-1a over 64-bit words, for frame sequences looked up in memory (the walked-stack cache,
// compiled methods' inline chains). The values never leave the process.
#pragma once

#include <cstdint>

namespace stackreq {

class WordHash {
public:
    explicit WordHash(uint64_t seed = 0) : h_(kOffsetBasis ^ seed) {}
    WordHash& add(uint64_t word) {
        h_ = (h_ ^ word) * kPrime;
        return *this;
    }
    uint64_t value() const { return h_; }

private:
    static constexpr uint64_t kOffsetBasis = 1469598103934665603ull;
    static constexpr uint64_t kPrime = 1099511628211ull;
    uint64_t h_;
};

}  // namespace stackreq
