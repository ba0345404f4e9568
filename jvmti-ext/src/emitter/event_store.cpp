#include "emitter/event_store.h"

#include <algorithm>
#include <limits>
#include <set>


namespace stackreq {

namespace {

// Stacks below this many are never worth a compaction pass.
constexpr size_t kStacksKeptAnyway = 1024;

std::string stack_key(const std::vector<StackFrameEntry>& frames, bool truncated) {
    std::string key;
    key.reserve(frames.size() * 13 + 1);
    key.push_back(truncated ? 't' : 'c');
    for (const StackFrameEntry& frame : frames) {
        key.append(reinterpret_cast<const char*>(&frame.method_id), sizeof(frame.method_id));
        key.append(reinterpret_cast<const char*>(&frame.bci), sizeof(frame.bci));
        key.push_back(static_cast<char>(frame.type));
    }
    return key;
}

}  // namespace

uint64_t EventStore::intern_stack(const std::vector<StackFrameEntry>& frames, bool truncated) {
    std::string key = stack_key(frames, truncated);
    auto found = stack_ids_.find(key);
    if (found != stack_ids_.end()) return found->second;
    uint64_t id = next_stack_id_++;
    stacks_.emplace(id, StackTraceEntry{id, truncated, frames});
    stack_ids_.emplace(std::move(key), id);
    return id;
}

int64_t EventStore::recording_stopped(int64_t recording_id) {
    auto found = running_.find(recording_id);
    if (found == running_.end()) return -1;
    int64_t start = found->second;
    running_.erase(found);
    return start;
}

void EventStore::collect(const Selection& selection, const EntryLookup& entries, ChunkContent* out) const {
    const uint64_t first_index = selection.first_index;
    const int64_t from_ticks = selection.from_ticks;
    const int64_t to_ticks = selection.to_ticks;
    std::set<uint64_t> stack_ids, thread_keys, method_ids;
    size_t start = first_index > base_index_ ? static_cast<size_t>(first_index - base_index_) : 0;
    for (size_t i = start; i < events_.size(); i++) {
        const StackTraceRequestEvent& event = events_[i];
        if (event.start_ticks < from_ticks || event.start_ticks > to_ticks) continue;
        out->events.push_back(event);
        if (event.stack_trace_id != 0) stack_ids.insert(event.stack_trace_id);
        if (event.thread_id != 0) thread_keys.insert(event.thread_id);
    }
    std::stable_sort(out->events.begin(), out->events.end(),
                     [](const StackTraceRequestEvent& a, const StackTraceRequestEvent& b) {
                         return a.start_ticks < b.start_ticks;
                     });
    for (uint64_t id : stack_ids) {
        auto found = stacks_.find(id);
        if (found == stacks_.end()) continue;  // never: a kept event's stack is kept
        const StackTraceEntry& stack = found->second;
        out->stacks.push_back(stack);
        for (const StackFrameEntry& frame : stack.frames) method_ids.insert(frame.method_id);
    }
    for (uint64_t id : method_ids) {
        const MethodEntry* method = entries.method(id);
        if (method != nullptr) out->methods.push_back(*method);
    }
    for (uint64_t key : thread_keys) {
        ThreadEntry thread;
        if (entries.thread(key, &thread)) out->threads.push_back(thread);
    }
    for (const StatisticsEvent& statistics : statistics_) {
        if (statistics.start_ticks >= selection.statistics_from && statistics.start_ticks <= to_ticks) {
            out->statistics.push_back(statistics);
        }
    }
}

bool EventStore::trim(uint64_t keep_from_index, int64_t keep_from_ticks) {
    int64_t oldest_needed = keep_from_ticks;
    for (const auto& recording : running_) oldest_needed = std::min(oldest_needed, recording.second);
    while (!events_.empty() && base_index_ < keep_from_index && events_.front().start_ticks < oldest_needed) {
        events_.pop_front();
        base_index_++;
    }
    statistics_.erase(std::remove_if(statistics_.begin(), statistics_.end(),
                                     [&](const StatisticsEvent& s) {
                                         return s.start_ticks < oldest_needed;
                                     }),
                      statistics_.end());
    // A pass over the kept events only once the stacks doubled since the last pass: amortized,
    // each interned stack pays for a constant part of one.
    if (stacks_.size() < std::max(kStacksKeptAnyway, 2 * stacks_after_last_pass_)) return false;
    std::unordered_set<uint64_t> referenced;
    for (const StackTraceRequestEvent& event : events_) {
        if (event.stack_trace_id != 0) referenced.insert(event.stack_trace_id);
    }
    if (2 * referenced.size() > stacks_.size()) {
        stacks_after_last_pass_ = stacks_.size();
        return false;
    }
    stacks_after_last_pass_ = referenced.size();
    // Forgotten: the content (stacks_) and its key (stack_ids_); the ids of the kept stacks and
    // events stay as they are.
    for (auto it = stack_ids_.begin(); it != stack_ids_.end();) {
        if (referenced.count(it->second) == 0) {
            stacks_.erase(it->second);
            it = stack_ids_.erase(it);
        } else {
            ++it;
        }
    }
    // Rehashed to the kept size: a map's buckets do not shrink by themselves.
    stacks_.rehash(0);
    stack_ids_.rehash(0);
    return true;
}

std::unordered_set<uint64_t> EventStore::referenced_threads() const {
    std::unordered_set<uint64_t> keys;
    for (const StackTraceRequestEvent& event : events_) {
        if (event.thread_id != 0) keys.insert(event.thread_id);
    }
    return keys;
}

}  // namespace stackreq
