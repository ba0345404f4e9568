// The event store alone, without a JVM: stack interning, what collect() selects (by index, by
// time, statistics) and what it pulls in, and what trim() keeps for each destination.
#include "emitter/event_store.h"

#include <limits>
#include <map>

#include "check.h"

using namespace stackreq;

namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

class Table : public EntryLookup {
public:
    Table() {
        for (uint64_t id = 1; id <= 4; id++) methods_[id] = MethodEntry{id, "p/C", "m" + std::to_string(id), "()V"};
        for (uint64_t key = 1; key <= 2; key++) {
            threads_[key] = ThreadEntry{key, 100 + static_cast<int64_t>(key), 0, "", ""};
        }
    }
    const MethodEntry* method(uint64_t id) const override {
        auto found = methods_.find(id);
        return found == methods_.end() ? nullptr : &found->second;
    }
    bool thread(uint64_t key, ThreadEntry* out) const override {
        auto found = threads_.find(key);
        if (found == threads_.end()) return false;
        *out = found->second;
        return true;
    }

private:
    std::map<uint64_t, MethodEntry> methods_;
    std::map<uint64_t, ThreadEntry> threads_;
};

std::vector<StackFrameEntry> frames(std::initializer_list<uint64_t> methods) {
    std::vector<StackFrameEntry> out;
    for (uint64_t m : methods) out.push_back({m, 10, 3, FrameType::kJava});
    return out;
}

StackTraceRequestEvent event(int64_t ticks, uint64_t thread, uint64_t stack, int64_t user_data) {
    return {ticks, thread, stack, user_data, stack == 0, false};
}

StatisticsEvent statistics(int64_t ticks) {
    StatisticsEvent s;
    s.start_ticks = ticks;
    return s;
}

}  // namespace

int main() {
    Table table;
    EventStore store;

    // Interning: the same frames and truncation give the same id, anything else a new one.
    uint64_t a = store.intern_stack(frames({1, 2}), false);
    CHECK(a == 1);
    CHECK(store.intern_stack(frames({1, 2}), false) == a);
    uint64_t truncated = store.intern_stack(frames({1, 2}), true);
    uint64_t b = store.intern_stack(frames({3}), false);
    CHECK(truncated != a && b != a && b != truncated);
    std::vector<StackFrameEntry> other_type = frames({1, 2});
    other_type[0].type = FrameType::kNative;
    CHECK(store.intern_stack(other_type, false) != a);

    // Events stored out of time order (as drained from several threads) come out sorted, with
    // exactly the stacks, methods and threads they use.
    store.add(event(300, 1, a, 3));
    store.add(event(100, 2, b, 1));
    store.add(event(200, 1, 0, 2));  // failed: no stack
    store.add_statistics(statistics(150));
    store.add_statistics(statistics(5000));
    CHECK(store.end_index() == 3 && store.size() == 3);
    ChunkContent all;
    store.collect({0, kMin, kMax, kMin}, table, &all);
    CHECK(all.events.size() == 3);
    CHECK(all.events[0].user_data == 1 && all.events[1].user_data == 2 && all.events[2].user_data == 3);
    CHECK(all.stacks.size() == 2 && all.methods.size() == 3 && all.threads.size() == 2);
    CHECK(all.statistics.size() == 2);

    // By time: (150, 250] takes only the failed event, no stack, no method, and one statistics.
    ChunkContent window;
    store.collect({0, 151, 250, 151}, table, &window);
    CHECK(window.events.size() == 1 && window.events[0].user_data == 2);
    CHECK(window.stacks.empty() && window.methods.empty() && window.threads.size() == 1);
    CHECK(window.statistics.empty());

    // By index (file= mode): from the third event on, whatever its time.
    ChunkContent from_index;
    store.collect({2, kMin, kMax, kMin}, table, &from_index);
    CHECK(from_index.events.size() == 1 && from_index.events[0].user_data == 2);

    // A method the lookup does not know is left out rather than invented.
    uint64_t unknown = store.intern_stack(frames({9}), false);
    store.add(event(400, 1, unknown, 4));
    ChunkContent with_unknown;
    store.collect({3, kMin, kMax, kMax}, table, &with_unknown);
    CHECK(with_unknown.stacks.size() == 1 && with_unknown.methods.empty());

    // trim: keeps what the file= recording (index) and the chunks (time) have not taken yet.
    store.trim(1, 1000);  // the file has taken event 0 only; the chunks everything up to 999
    CHECK(store.size() == 3 && store.end_index() == 4);
    store.trim(4, 201);  // the file has all; chunks have everything up to 200
    // Front first, in stored order: event 1 (100) goes; event 2 (200) goes; event 3 (400) stays.
    CHECK(store.size() == 1);
    ChunkContent rest;
    store.collect({0, kMin, kMax, kMin}, table, &rest);
    CHECK(rest.events.size() == 1 && rest.events[0].user_data == 4);
    CHECK(rest.statistics.size() == 1 && rest.statistics[0].start_ticks == 5000);

    // A running recording (no chunk hook) keeps everything from its start, whatever the cuts.
    EventStore recorded;
    recorded.recording_started(7, 50);
    recorded.add(event(60, 1, 0, 10));
    recorded.add(event(70, 1, 0, 11));
    recorded.trim(2, kMax);
    CHECK(recorded.size() == 2 && recorded.running_recordings() == 1);
    CHECK(recorded.recording_stopped(7) == 50 && recorded.recording_stopped(7) == -1);
    recorded.trim(2, kMax);
    CHECK(recorded.size() == 0);

    // Stacks no kept event refers to are forgotten once they are most of the store (checked when
    // the stacks doubled since the last check); the kept events and stacks keep their ids, and no
    // id is ever handed out again (a reader reuses the previous chunk's entry of a repeated key).
    EventStore churn;
    std::vector<uint64_t> id_of(6000, 0);
    auto add_churn = [&churn, &id_of](uint64_t from, uint64_t to) {
        for (uint64_t i = from; i < to; i++) {
            uint64_t id = churn.intern_stack(frames({1, 2 + i % 3, 1000 + i}), false);
            id_of[i] = id;
            churn.add(event(static_cast<int64_t>(i), 1 + i % 2, id, static_cast<int64_t>(i)));
        }
    };
    add_churn(0, 3000);
    CHECK(!churn.trim(1000, 1000) && churn.stack_count() == 3000);  // 2,000 of 3,000 still referenced
    add_churn(3000, 4000);
    CHECK(!churn.trim(3990, 3990) && churn.stack_count() == 4000);  // not doubled since the last check
    add_churn(4000, 6000);
    CHECK(churn.trim(5990, 5990) && churn.size() == 10 && churn.stack_count() == 10);
    CHECK(churn.referenced_threads().size() == 2);
    ChunkContent after;
    churn.collect({0, kMin, kMax, kMin}, Table(), &after);
    CHECK(after.events.size() == 10 && after.stacks.size() == 10);
    for (const StackTraceRequestEvent& kept : after.events) {
        CHECK(kept.stack_trace_id == id_of[static_cast<size_t>(kept.user_data)]);
        const StackTraceEntry* stack = nullptr;
        for (const StackTraceEntry& s : after.stacks) {
            if (s.id == kept.stack_trace_id) stack = &s;
        }
        CHECK(stack != nullptr);
        CHECK(stack->frames[2].method_id == 1000 + static_cast<uint64_t>(kept.user_data));
    }
    // A kept stack seen again is found under its id; a forgotten one seen again, and a new one,
    // get ids never handed out before.
    CHECK(churn.intern_stack(frames({1, 2 + 5999 % 3, 6999}), false) == id_of[5999]);
    uint64_t again = churn.intern_stack(frames({1, 2 + 0 % 3, 1000}), false);
    CHECK(again == 6001 && again != id_of[0]);
    CHECK(churn.intern_stack(frames({5}), false) == 6002);
    // Chunks collected before and after a compaction never give one id two contents.
    EventStore ids;
    std::vector<std::vector<StackFrameEntry>> content_of(1);  // by id
    for (int round = 0; round < 8; round++) {
        for (uint64_t i = 0; i < 2000; i++) {
            std::vector<StackFrameEntry> stack = frames({7, 1000 + (static_cast<uint64_t>(round) * 733 + i) % 5000});
            uint64_t id = ids.intern_stack(stack, false);
            if (id >= content_of.size()) content_of.resize(id + 1);
            if (content_of[id].empty()) content_of[id] = stack;
            CHECK(content_of[id].size() == stack.size() && content_of[id][1].method_id == stack[1].method_id);
            ids.add(event(round * 10000 + static_cast<int64_t>(i), 1, id, static_cast<int64_t>(i)));
        }
        ids.trim(ids.end_index(), kMax);
    }
    CHECK(ids.stack_count() <= 4000);
    return 0;
}
