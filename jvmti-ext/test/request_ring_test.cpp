// The ring under concurrent producers: nothing lost, nothing duplicated, full ring refuses.
#include <atomic>
#include <thread>
#include <vector>

#include "check.h"
#include "request_ring.h"

using namespace stackreq;

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

static void concurrent_producers_lose_nothing() {
    RequestRing ring;
    CHECK(ring.init(256, 4));
    constexpr int kProducers = 4;
    constexpr int kPerProducer = 200000;
    std::atomic<int64_t> refused{0};
    std::atomic<int64_t> wakeups{0};
    std::atomic<bool> done{false};
    std::vector<int> seen(kProducers * kPerProducer, 0);
    std::thread consumer([&] {
        int64_t consumed = 0;
        for (;;) {
            RequestSlot* slot = ring.peek();
            if (slot == nullptr) {
                if (done.load() && !ring.has_unconsumed()) break;
                std::this_thread::yield();
                continue;
            }
            seen[slot->event.user_data]++;
            CHECK(slot->frame_count == static_cast<int32_t>(slot->event.user_data % 7));
            ring.release(slot);
            consumed++;
        }
        (void)consumed;
    });
    std::vector<std::thread> producers;
    for (int p = 0; p < kProducers; p++) {
        producers.emplace_back([&, p] {
            for (int i = 0; i < kPerProducer; i++) {
                RequestSlot* slot = ring.claim();
                if (slot == nullptr) {
                    refused.fetch_add(1);
                    continue;
                }
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
    CHECK(delivered > 0);
    CHECK(wakeups.load() == delivered / (256 / 4));  // one every 64 claims, however they interleave
    std::printf("ring: delivered %lld, refused (full) %lld\n", static_cast<long long>(delivered),
                static_cast<long long>(refused.load()));
    ring.destroy();
}

int main() {
    fills_then_refuses();
    a_quarter_of_the_ring_wakes_the_consumer();
    concurrent_producers_lose_nothing();
    std::printf("request_ring_test: ok\n");
    return 0;
}
