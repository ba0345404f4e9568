#include "request/request_ring.h"

#include <sys/mman.h>

#include <new>

namespace stackreq {

namespace {

size_t round_up_to_line(size_t bytes) { return (bytes + 63) & ~size_t{63}; }

}  // namespace

bool RequestRing::init(uint32_t slots, uint32_t max_depth, uint32_t native_depth) {
    max_depth_ = max_depth;
    native_depth_ = native_depth;
    mask_ = slots - 1;
    wake_mask_ = slots >= 4 ? slots / 4 - 1 : ~uint64_t{0};
    const size_t frames_end = offsetof(RequestSlot, frames) + sizeof(CallFrame) * max_depth;
    const size_t native_offset = frames_end + sizeof(uintptr_t) * max_depth;
    stride_ = round_up_to_line(native_offset + sizeof(uintptr_t) * native_depth);
    const size_t cells_bytes = round_up_to_line(sizeof(Cell) * slots);
    const size_t links_bytes = round_up_to_line(sizeof(std::atomic<uint32_t>) * slots);
    bytes_ = cells_bytes + links_bytes + stride_ * slots;
    void* memory = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return false;
    memory_ = static_cast<char*>(memory);
    cells_ = reinterpret_cast<Cell*>(memory_);
    next_free_ = reinterpret_cast<std::atomic<uint32_t>*>(memory_ + cells_bytes);
    slots_ = memory_ + cells_bytes + links_bytes;
    for (uint32_t i = 0; i < slots; i++) {
        new (&cells_[i].sequence) std::atomic<uint32_t>(i);
        cells_[i].index = kNoSlot;
        // Slot 0 on top, then 1, 2...: the first claims take the slots in address order.
        new (&next_free_[i]) std::atomic<uint32_t>(i + 1 < slots ? i + 1 : kNoSlot);
        RequestSlot* slot = slot_at(i);
        slot->position = 0;
        slot->index = i;
        slot->physical_pcs = reinterpret_cast<uintptr_t*>(reinterpret_cast<char*>(slot) + frames_end);
        slot->native_count = 0;
        slot->native_pcs = reinterpret_cast<uintptr_t*>(reinterpret_cast<char*>(slot) + native_offset);
    }
    free_top_.store(0);
    enqueue_position_.store(0);
    dequeue_position_ = 0;
    return true;
}

bool RequestRing::commit_memory_once() {
#ifndef MADV_POPULATE_WRITE
    constexpr int MADV_POPULATE_WRITE = 23;  // Linux 5.14 uapi; older headers lack it
#endif
    if (memory_ == nullptr || commit_tried_.exchange(true)) return true;
    return madvise(memory_, bytes_, MADV_POPULATE_WRITE) == 0;
}

void RequestRing::destroy() {
    if (memory_ != nullptr) munmap(memory_, bytes_);
    memory_ = nullptr;
}

void RequestRing::push_free(uint32_t index) {
    uint64_t top = free_top_.load(std::memory_order_relaxed);
    for (;;) {
        next_free_[index].store(static_cast<uint32_t>(top), std::memory_order_relaxed);
        const uint64_t tag = (top >> 32) + 1;
        if (free_top_.compare_exchange_weak(top, (tag << 32) | index, std::memory_order_release,
                                            std::memory_order_relaxed)) {
            return;
        }
    }
}

RequestSlot* RequestRing::claim() {
    const uint32_t index = pop_free([] {});
    return index == kNoSlot ? nullptr : take_position(index);
}

RequestSlot* RequestRing::take_position(uint32_t index) {
    // The consumer frees a position before it pushes its slot back (release), and the position
    // is taken with acquire-release: so with this slot out of the free list, the positions before
    // the one read here and the releases that freed them are seen, and fewer than capacity
    // positions are taken (a free one is there). A handler interrupting this claim takes its own
    // slot and the position before or after ours.
    uint64_t position = enqueue_position_.load(std::memory_order_acquire);
    for (;;) {
        const uint32_t sequence = cells_[position & mask_].sequence.load(std::memory_order_acquire);
        const int32_t difference = static_cast<int32_t>(sequence - static_cast<uint32_t>(position));
        if (difference == 0) {
            if (enqueue_position_.compare_exchange_weak(position, position + 1, std::memory_order_acq_rel,
                                                        std::memory_order_acquire)) {
                break;
            }
        } else if (difference < 0) {
            push_free(index);  // not expected (see above); the slot must not be lost
            return nullptr;
        } else {
            position = enqueue_position_.load(std::memory_order_acquire);
        }
    }
    RequestSlot* slot = slot_at(index);
    slot->position = position;
    return slot;
}

bool RequestRing::publish(RequestSlot* slot) {
    const uint64_t position = slot->position;
    Cell& cell = cells_[position & mask_];
    cell.index = slot->index;
    cell.sequence.store(static_cast<uint32_t>(position + 1), std::memory_order_release);
    return ((position + 1) & wake_mask_) == 0;
}

RequestSlot* RequestRing::peek() {
    const Cell& cell = cells_[dequeue_position_ & mask_];
    const uint32_t sequence = cell.sequence.load(std::memory_order_acquire);
    return sequence == static_cast<uint32_t>(dequeue_position_ + 1) ? slot_at(cell.index) : nullptr;
}

void RequestRing::release(RequestSlot* slot) {
    // The position first: a producer that pops this slot must find a free position (claim).
    cells_[dequeue_position_ & mask_].sequence.store(static_cast<uint32_t>(dequeue_position_ + mask_ + 1),
                                                     std::memory_order_release);
    dequeue_position_++;
    push_free(slot->index);
}

bool RequestRing::has_unconsumed() const {
    return enqueue_position_.load(std::memory_order_acquire) != dequeue_position_;
}

}  // namespace stackreq
