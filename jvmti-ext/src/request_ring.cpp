#include "request_ring.h"

#include <sys/mman.h>

#include <new>

namespace stackreq {

bool RequestRing::init(uint32_t slots, uint32_t max_depth, uint32_t native_depth) {
    max_depth_ = max_depth;
    native_depth_ = native_depth;
    mask_ = slots - 1;
    wake_mask_ = slots >= 4 ? slots / 4 - 1 : ~uint64_t{0};
    const size_t frames_end = offsetof(RequestSlot, frames) + sizeof(CallFrame) * max_depth;
    const size_t native_offset = frames_end + sizeof(uintptr_t) * max_depth;
    stride_ = (native_offset + sizeof(uintptr_t) * native_depth + 63) & ~size_t{63};
    bytes_ = stride_ * slots;
    void* memory = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return false;
    memory_ = static_cast<char*>(memory);
    for (uint32_t i = 0; i < slots; i++) {
        RequestSlot* slot = at(i);
        new (&slot->sequence) std::atomic<uint64_t>(i);
        slot->physical_pcs = reinterpret_cast<uintptr_t*>(reinterpret_cast<char*>(slot) + frames_end);
        slot->native_count = 0;
        slot->native_pcs = reinterpret_cast<uintptr_t*>(reinterpret_cast<char*>(slot) + native_offset);
    }
    enqueue_position_.store(0);
    dequeue_position_ = 0;
    return true;
}

bool RequestRing::commit_memory_once() {
#ifndef MADV_POPULATE_WRITE
    constexpr int MADV_POPULATE_WRITE = 23;  // Linux 5.14 uapi; older headers lack it
#endif
    if (commit_tried_ || memory_ == nullptr) return true;
    commit_tried_ = true;
    return madvise(memory_, bytes_, MADV_POPULATE_WRITE) == 0;
}

void RequestRing::destroy() {
    if (memory_ != nullptr) munmap(memory_, bytes_);
    memory_ = nullptr;
}

RequestSlot* RequestRing::claim() {
    uint64_t position = enqueue_position_.load(std::memory_order_relaxed);
    for (;;) {
        RequestSlot* slot = at(position);
        uint64_t sequence = slot->sequence.load(std::memory_order_acquire);
        int64_t difference = static_cast<int64_t>(sequence) - static_cast<int64_t>(position);
        if (difference == 0) {
            if (enqueue_position_.compare_exchange_weak(position, position + 1, std::memory_order_relaxed)) {
                return slot;
            }
        } else if (difference < 0) {
            return nullptr;  // full
        } else {
            position = enqueue_position_.load(std::memory_order_relaxed);
        }
    }
}

bool RequestRing::publish(RequestSlot* slot) {
    // The slot's sequence equals its position; position + 1 marks it ready for the consumer.
    uint64_t position = slot->sequence.load(std::memory_order_relaxed);
    slot->sequence.store(position + 1, std::memory_order_release);
    return ((position + 1) & wake_mask_) == 0;
}

RequestSlot* RequestRing::peek() {
    RequestSlot* slot = at(dequeue_position_);
    uint64_t sequence = slot->sequence.load(std::memory_order_acquire);
    return sequence == dequeue_position_ + 1 ? slot : nullptr;
}

void RequestRing::release(RequestSlot* slot) {
    slot->sequence.store(dequeue_position_ + mask_ + 1, std::memory_order_release);
    dequeue_position_++;
}

bool RequestRing::has_unconsumed() const {
    return enqueue_position_.load(std::memory_order_acquire) != dequeue_position_;
}

}  // namespace stackreq
