// The ring under concurrent producers, and under producers in signal handlers interrupting
// claims, publishes and releases on the same threads: nothing lost, nothing duplicated, a ring
// with every slot claimed refuses, every slot comes back exactly once, the consumer sees the
// claim order, and a claim takes the slot released last.
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "check.h"
#include "request/request_ring.h"

using namespace stackreq;

namespace stackreq {

// The claim's two halves, so that a test can interrupt them where a signal could.
struct RequestRingTestAccess {
    template <typename Interruption>
    static uint32_t pop(RequestRing& ring, Interruption interrupted) {
        return ring.pop_free(interrupted);
    }
    static RequestSlot* take_position(RequestRing& ring, uint32_t index) { return ring.take_position(index); }
    // An empty ring as it is after `position` claims, all consumed.
    static void start_at(RequestRing& ring, uint64_t position) {
        for (uint64_t p = position; p < position + ring.capacity(); p++) {
            ring.cells_[p & ring.mask_].sequence.store(static_cast<uint32_t>(p));
        }
        ring.enqueue_position_.store(position);
        ring.dequeue_position_ = position;
    }
};

}  // namespace stackreq

using Access = RequestRingTestAccess;

static void fills_then_refuses() {
    RequestRing ring;
    CHECK(ring.init(4, 8));
    std::vector<RequestSlot*> claimed;
    for (int i = 0; i < 4; i++) {
        RequestSlot* slot = ring.claim();
        CHECK(slot != nullptr);
        slot->event.user_data = i;
        claimed.push_back(slot);
    }
    CHECK(ring.claim() == nullptr);
    // Claimed but unpublished slots are not visible to the consumer.
    CHECK(ring.peek() == nullptr);
    CHECK(ring.has_unconsumed());
    ring.publish(claimed[1]);
    CHECK(ring.peek() == nullptr);  // order is kept: slot 0 first
    ring.publish(claimed[0]);
    RequestSlot* first = ring.peek();
    CHECK(first != nullptr && first->event.user_data == 0);
    ring.release(first);
    RequestSlot* second = ring.peek();
    CHECK(second != nullptr && second->event.user_data == 1);
    ring.release(second);
    CHECK(ring.claim() != nullptr);  // space again
    ring.destroy();
}

// The slot released last is claimed first, so a ring that the consumer keeps up with writes to
// the same few slots; a burst after that goes on to slots not used lately.
static void claims_take_the_slot_released_last() {
    RequestRing ring;
    CHECK(ring.init(8, 4));
    RequestSlot* first[3];
    for (RequestSlot*& slot : first) {
        slot = ring.claim();
        CHECK(slot != nullptr);
    }
    CHECK(first[0]->index == 0 && first[1]->index == 1 && first[2]->index == 2);
    for (RequestSlot* slot : first) ring.publish(slot);
    while (RequestSlot* slot = ring.peek()) ring.release(slot);
    CHECK(!ring.has_unconsumed());
    for (int round = 0; round < 100; round++) {
        RequestSlot* slot = ring.claim();
        CHECK(slot == first[2]);  // released last
        ring.publish(slot);
        CHECK(ring.peek() == slot);
        ring.release(slot);
    }
    RequestSlot* again[3];
    for (RequestSlot*& slot : again) slot = ring.claim();
    CHECK(again[0] == first[2] && again[1] == first[1] && again[2] == first[0]);
    // Published out of claim order, consumed in claim order.
    for (int i = 2; i >= 0; i--) ring.publish(again[i]);
    for (RequestSlot* slot : again) {
        CHECK(ring.peek() == slot);
        ring.release(slot);
    }
    // Every slot is claimable once, then none: the free list lost and duplicated nothing.
    std::set<uint32_t> indices;
    std::vector<RequestSlot*> all;
    for (int i = 0; i < 8; i++) {
        RequestSlot* slot = ring.claim();
        CHECK(slot != nullptr);
        indices.insert(slot->index);
        all.push_back(slot);
    }
    CHECK(indices.size() == 8 && ring.claim() == nullptr);
    for (RequestSlot* slot : all) ring.publish(slot);
    for (RequestSlot* slot : all) {
        CHECK(ring.peek() == slot);
        ring.release(slot);
    }
    CHECK(ring.claim() == all.back());
    ring.destroy();
}

// A handler between the pop's read of the top and its exchange takes the top and the slot under
// it, and the consumer gives the top back: the top is the same slot again but the one under it is
// held. The interrupted pop must not take the stale next (ABA): the tag fails its exchange.
static void an_interrupted_pop_sees_the_top_popped_and_pushed_again() {
    RequestRing ring;
    CHECK(ring.init(4, 4));
    RequestSlot* held = nullptr;
    int interruptions = 0;
    const uint32_t index = Access::pop(ring, [&] {
        if (interruptions++ > 0) return;
        RequestSlot* a = ring.claim();
        held = ring.claim();
        CHECK(a->index == 0 && held->index == 1);
        ring.publish(a);
        ring.publish(held);
        CHECK(ring.peek() == a);
        ring.release(a);  // slot 0 on top again
    });
    CHECK(interruptions == 2 && index == 0);
    RequestSlot* outer = Access::take_position(ring, index);
    RequestSlot* next = ring.claim();
    CHECK(next != nullptr && next->index == 2);  // not slot 1, which the handler still holds
    CHECK(ring.peek() == held);
    ring.release(held);
    ring.publish(outer);
    ring.publish(next);
    CHECK(ring.peek() == outer);
    ring.release(outer);
    CHECK(ring.peek() == next);
    ring.release(next);
    CHECK(!ring.has_unconsumed());
    ring.destroy();
}

// A handler between the pop and the position: it claims and publishes after the interrupted
// claim took its slot, and comes first in the order; the interrupted one, claimed after it,
// holds back nothing but itself.
static void a_handler_between_pop_and_position_comes_first() {
    RequestRing ring;
    CHECK(ring.init(4, 4));
    const uint32_t index = Access::pop(ring, [] {});
    RequestSlot* inner = ring.claim();
    CHECK(inner != nullptr && inner->index != index);
    inner->event.user_data = 2;
    ring.publish(inner);
    RequestSlot* outer = Access::take_position(ring, index);
    CHECK(outer != nullptr && outer->position == inner->position + 1);
    outer->event.user_data = 1;
    CHECK(ring.peek() == inner);
    ring.release(inner);
    CHECK(ring.peek() == nullptr && ring.has_unconsumed());  // claimed, not published
    ring.publish(outer);
    CHECK(ring.peek() == outer);
    ring.release(outer);
    CHECK(!ring.has_unconsumed());
    ring.destroy();

    // The handler takes the last free slots: the interrupted claim finds none and refuses.
    RequestRing tiny;
    CHECK(tiny.init(2, 4));
    RequestSlot* taken[2] = {};
    int interruptions = 0;
    const uint32_t none = Access::pop(tiny, [&] {
        if (interruptions++ > 0) return;
        for (RequestSlot*& slot : taken) {
            slot = tiny.claim();
            CHECK(slot != nullptr);
            tiny.publish(slot);
        }
    });
    CHECK(none == ~uint32_t{0} && tiny.claim() == nullptr);
    for (RequestSlot* slot : taken) {
        CHECK(tiny.peek() == slot);
        tiny.release(slot);
    }
    CHECK(tiny.claim() == taken[1]);
    tiny.destroy();
}

// The cells keep the low 32 bits of a position: past 2^32 claims the order and the wake-ups go on.
static void positions_wrap_in_the_cells() {
    RequestRing ring;
    CHECK(ring.init(8, 4));
    const uint64_t start = (uint64_t{1} << 32) - 20;
    Access::start_at(ring, start);
    int wakeups = 0;
    int64_t claims = 0;
    for (int round = 0; round < 10; round++) {
        std::vector<RequestSlot*> slots;
        for (int i = 0; i <= round % 8; i++) {
            RequestSlot* slot = ring.claim();
            CHECK(slot != nullptr && slot->position == start + claims);
            slot->event.user_data = claims++;
            slots.push_back(slot);
        }
        for (auto slot = slots.rbegin(); slot != slots.rend(); ++slot) wakeups += ring.publish(*slot) ? 1 : 0;
        for (RequestSlot* slot : slots) {
            CHECK(ring.peek() == slot);
            ring.release(slot);
        }
        CHECK(ring.peek() == nullptr && !ring.has_unconsumed());
    }
    CHECK(start + claims > (uint64_t{1} << 32));
    CHECK(wakeups == static_cast<int>((start + claims) / 2 - start / 2));
    ring.destroy();
}

// One publish in every quarter of the capacity asks for the consumer's wake-up, whatever the
// order in which claimed slots are published.
static void a_quarter_of_the_ring_wakes_the_consumer() {
    RequestRing ring;
    CHECK(ring.init(16, 4));
    int wakeups = 0;
    for (int round = 0; round < 10; round++) {
        RequestSlot* slots[8];
        for (RequestSlot*& slot : slots) {
            slot = ring.claim();
            CHECK(slot != nullptr);
        }
        for (int i = 7; i >= 0; i--) wakeups += ring.publish(slots[i]) ? 1 : 0;
        while (RequestSlot* slot = ring.peek()) ring.release(slot);
    }
    CHECK(wakeups == 80 / 4);
    ring.destroy();

    RequestRing tiny;
    CHECK(tiny.init(2, 4));
    for (int i = 0; i < 5; i++) {
        RequestSlot* slot = tiny.claim();
        CHECK(slot != nullptr && !tiny.publish(slot));  // a ring under four slots has no quarter
        tiny.release(tiny.peek());
    }
    tiny.destroy();
}

// Slot ownership, checked at each claim and release: a slot is held by one request at a time.
struct Holders {
    explicit Holders(uint32_t slots) : held(slots) {}
    void claimed(const RequestSlot* slot) {
        CHECK(held[slot->index].exchange(1) == 0);
        claims.fetch_add(1);
    }
    void released(const RequestSlot* slot) { CHECK(held[slot->index].exchange(0) == 1); }
    std::vector<std::atomic<int>> held;
    std::atomic<int64_t> claims{0};
};

// After a run every slot is free: exactly capacity claims succeed, each a different slot.
static void every_slot_came_back(RequestRing& ring) {
    std::set<uint32_t> indices;
    std::vector<RequestSlot*> all;
    while (RequestSlot* slot = ring.claim()) {
        indices.insert(slot->index);
        all.push_back(slot);
    }
    CHECK(all.size() == ring.capacity() && indices.size() == ring.capacity());
    for (RequestSlot* slot : all) ring.publish(slot);
    while (RequestSlot* slot = ring.peek()) ring.release(slot);
}

// The consumer of the concurrent tests: each published slot to check(slot), then back to the
// ring, until done is set and nothing claimed is left.
template <typename Check>
static void consume_until_done(RequestRing& ring, const std::atomic<bool>& done, Holders& holders, Check check) {
    for (;;) {
        RequestSlot* slot = ring.peek();
        if (slot == nullptr) {
            if (done.load() && !ring.has_unconsumed()) break;
            std::this_thread::yield();
            continue;
        }
        check(*slot);
        holders.released(slot);
        ring.release(slot);
    }
}

static void concurrent_producers_lose_nothing() {
    RequestRing ring;
    CHECK(ring.init(256, 4));
    // More producers than this machine's cores: a producer preempted between reading the free
    // list's top and its compare-exchange finds the top popped and pushed again (ABA).
    constexpr int kProducers = 8;
    constexpr int kPerProducer = 100000;
    Holders holders(256);
    std::atomic<int64_t> refused{0};
    std::atomic<int64_t> wakeups{0};
    std::atomic<bool> done{false};
    std::vector<int> seen(kProducers * kPerProducer, 0);
    std::thread consumer([&] {
        std::vector<int64_t> last(kProducers, -1);
        consume_until_done(ring, done, holders, [&](const RequestSlot& slot) {
            const int64_t id = slot.event.user_data;
            seen[id]++;
            CHECK(slot.frame_count == static_cast<int32_t>(id % 7));
            // Each producer claims one slot after the other: its requests come in its order.
            CHECK(id % kPerProducer > last[id / kPerProducer]);
            last[id / kPerProducer] = id % kPerProducer;
        });
    });
    std::vector<std::thread> producers;
    for (int p = 0; p < kProducers; p++) {
        producers.emplace_back([&, p] {
            for (int i = 0; i < kPerProducer; i++) {
                RequestSlot* slot = ring.claim();
                if (slot == nullptr) {
                    refused.fetch_add(1);
                    std::this_thread::yield();
                    continue;
                }
                holders.claimed(slot);
                slot->event.user_data = p * kPerProducer + i;
                slot->frame_count = static_cast<int32_t>(slot->event.user_data % 7);
                if (ring.publish(slot)) wakeups.fetch_add(1);
            }
        });
    }
    for (auto& producer : producers) producer.join();
    done.store(true);
    consumer.join();
    int64_t delivered = 0;
    for (int count : seen) {
        CHECK(count == 0 || count == 1);
        delivered += count;
    }
    CHECK(delivered + refused.load() == int64_t{kProducers} * kPerProducer);
    CHECK(delivered == holders.claims.load());
    CHECK(delivered > 0);
    CHECK(wakeups.load() == delivered / (256 / 4));  // one every 64 claims, however they interleave
    every_slot_came_back(ring);
    std::printf("ring: delivered %lld, refused (full) %lld\n", static_cast<long long>(delivered),
                static_cast<long long>(refused.load()));
    ring.destroy();
}

// Requests from signal handlers, as the agent's: a signal interrupts a producer anywhere in its
// claim or publish (or the consumer in its release) and the handler claims and publishes a slot
// of its own on the same thread. Nothing may deadlock, be lost or be given twice.
namespace nested {

constexpr int kProducers = 3;
constexpr int kPerProducer = 200000;
constexpr int64_t kMaxIds = 4000000;
RequestRing* g_ring = nullptr;
Holders* g_holders = nullptr;
std::atomic<int64_t> g_next_id{0};
std::atomic<int64_t> g_refused{0};
std::atomic<int64_t> g_in_handlers{0};

// Async-signal-safe: atomics and the ring only. False when the ring refused.
bool request(int64_t id) {
    RequestSlot* slot = g_ring->claim();
    if (slot == nullptr) {
        g_refused.fetch_add(1);
        return false;
    }
    g_holders->claimed(slot);
    slot->event.user_data = id;
    slot->frame_count = static_cast<int32_t>(id % 7);
    g_ring->publish(slot);
    return true;
}

void on_signal(int) {
    const int64_t id = g_next_id.fetch_add(1);
    if (id >= kMaxIds) return;
    g_in_handlers.fetch_add(1);
    request(id);
}

}  // namespace nested

static void handlers_interrupting_claims_lose_nothing() {
    using namespace nested;
    RequestRing ring;
    CHECK(ring.init(64, 4));
    Holders holders(64);
    g_ring = &ring;
    g_holders = &holders;
    struct sigaction action {};
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    CHECK(sigaction(SIGUSR1, &action, nullptr) == 0);

    std::atomic<bool> producing{true};
    std::atomic<int> finished{0};
    std::atomic<bool> done{false};
    std::vector<int> seen(kMaxIds, 0);
    std::vector<pthread_t> targets;
    std::mutex targets_mutex;
    std::thread consumer([&] {
        {
            std::lock_guard<std::mutex> guard(targets_mutex);
            targets.push_back(pthread_self());
        }
        consume_until_done(ring, done, holders, [&](const RequestSlot& slot) {
            const int64_t id = slot.event.user_data;
            CHECK(id >= 0 && id < kMaxIds);
            seen[id]++;
            CHECK(slot.frame_count == static_cast<int32_t>(id % 7));
        });
    });
    std::vector<std::thread> producers;
    for (int p = 0; p < kProducers; p++) {
        producers.emplace_back([&] {
            {
                std::lock_guard<std::mutex> guard(targets_mutex);
                targets.push_back(pthread_self());
            }
            for (int i = 0; i < kPerProducer; i++) {
                const int64_t id = g_next_id.fetch_add(1);
                // A full ring makes the producer wait a little, so that most claims succeed and
                // the handlers interrupt claims rather than refusals.
                if (id < kMaxIds && !request(id)) std::this_thread::yield();
            }
            // Signals keep coming until every producer is done: the thread must still be there.
            finished.fetch_add(1);
            while (producing.load()) std::this_thread::yield();
        });
    }
    std::thread signaller([&] {
        while (producing.load()) {
            std::vector<pthread_t> now;
            {
                std::lock_guard<std::mutex> guard(targets_mutex);
                now = targets;
            }
            for (pthread_t target : now) pthread_kill(target, SIGUSR1);
        }
    });
    while (finished.load() < kProducers) std::this_thread::yield();
    producing.store(false);
    signaller.join();
    for (auto& producer : producers) producer.join();
    done.store(true);
    consumer.join();
    signal(SIGUSR1, SIG_IGN);
    const int64_t ids = std::min(g_next_id.load(), kMaxIds);
    int64_t delivered = 0;
    for (int64_t id = 0; id < ids; id++) {
        CHECK(seen[id] == 0 || seen[id] == 1);
        delivered += seen[id];
    }
    CHECK(delivered + g_refused.load() == ids);
    CHECK(delivered == holders.claims.load());
    CHECK(!ring.has_unconsumed());
    every_slot_came_back(ring);
    std::printf("ring with handlers: %lld requests from handlers, delivered %lld, refused (full) %lld\n",
                static_cast<long long>(g_in_handlers.load()), static_cast<long long>(delivered),
                static_cast<long long>(g_refused.load()));
    CHECK(g_in_handlers.load() > 0);
    ring.destroy();
}

int main() {
    fills_then_refuses();
    claims_take_the_slot_released_last();
    an_interrupted_pop_sees_the_top_popped_and_pushed_again();
    a_handler_between_pop_and_position_comes_first();
    positions_wrap_in_the_cells();
    a_quarter_of_the_ring_wakes_the_consumer();
    concurrent_producers_lose_nothing();
    handlers_interrupting_claims_lose_nothing();
    std::printf("request_ring_test: ok\n");
    return 0;
}
