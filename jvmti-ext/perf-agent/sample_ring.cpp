#include "sample_ring.h"

#include <sys/mman.h>

namespace stackreq_perf {

SampleRing::~SampleRing() {
    if (cells_ != nullptr) munmap(cells_, sizeof(Cell) * (mask_ + 1));
}

bool SampleRing::init(size_t capacity) {
    size_t size = 1;
    while (size < capacity) size <<= 1;
    // mmap'd zero pages: no allocator involvement and nothing for a signal handler to race.
    void* memory = mmap(nullptr, sizeof(Cell) * size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return false;
    cells_ = static_cast<Cell*>(memory);
    mask_ = size - 1;
    for (size_t i = 0; i < size; i++) cells_[i].sequence.store(i, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    return true;
}

bool SampleRing::push(const Sample& sample, bool* quarter_filled) {
    *quarter_filled = false;
    uint64_t position = tail_.load(std::memory_order_relaxed);
    while (true) {
        Cell& cell = cells_[position & mask_];
        uint64_t sequence = cell.sequence.load(std::memory_order_acquire);
        int64_t difference = int64_t(sequence) - int64_t(position);
        if (difference == 0) {
            if (tail_.compare_exchange_weak(position, position + 1, std::memory_order_relaxed)) {
                cell.sample = sample;
                cell.sequence.store(position + 1, std::memory_order_release);
                const uint64_t quarter = (mask_ + 1) / 4;
                *quarter_filled = quarter > 0 && (position + 1) % quarter == 0;
                return true;
            }
        } else if (difference < 0) {
            return false;  // the consumer has not freed this cell yet: full
        } else {
            position = tail_.load(std::memory_order_relaxed);
        }
    }
}

bool SampleRing::pop(Sample* out) {
    Cell& cell = cells_[head_ & mask_];
    uint64_t sequence = cell.sequence.load(std::memory_order_acquire);
    if (sequence != head_ + 1) return false;
    *out = cell.sample;
    cell.sequence.store(head_ + mask_ + 1, std::memory_order_release);
    head_++;
    return true;
}

}  // namespace stackreq_perf
