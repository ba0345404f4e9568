// Resolved events kept until every destination has them: JFR's chunk files (or, without the
// chunk hook, the recordings that enable jdk.StackTraceRequest, when they stop) and the file=
// recording.
// Stacks are deduplicated here. Not thread-safe: the emitter serializes access.
//
// Stack ids: an id names one stack content for the life of the agent, and no id is ever handed
// out twice. A stack id is the constant-pool key of every chunk that writes the stack, and the
// JDK's reader takes the entry of the previous chunk when a key repeats (ChunkParser reuses its
// resolved object and skips the new one): an id that named another stack in the chunk before
// gives events that other stack. Memory stays bounded all the same: trim() forgets the stacks
// no kept event refers to, content and id both; a forgotten stack seen again gets a new id, so
// the same content may have several ids over time, never one id several contents.
// (StackIdsAcrossChunksTest: when trim renumbered the kept stacks from 1, the JDK reader gave
// 80-90% of a file= recording's events, in chunks after the first compaction, other stacks.)
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "chunk_writer/jfr_chunk.h"

namespace stackreq {

// Where collect() finds the methods and threads its events refer to (the emitter's method
// resolver and thread identities; a table in the unit test).
class EntryLookup {
public:
    virtual const MethodEntry* method(uint64_t id) const = 0;
    virtual bool thread(uint64_t key, ThreadEntry* out) const = 0;

protected:
    ~EntryLookup() = default;
};

class EventStore {
public:
    // Returns the id of this stack (frames top first), adding it when new.
    uint64_t intern_stack(const std::vector<StackFrameEntry>& frames, bool truncated);
    void add(const StackTraceRequestEvent& event) { events_.push_back(event); }
    void add_statistics(const StatisticsEvent& statistics) { statistics_.push_back(statistics); }

    void recording_started(int64_t recording_id, int64_t ticks) { running_.emplace(recording_id, ticks); }
    size_t running_recordings() const { return running_.size(); }
    // Forgets the recording; returns its start ticks, or -1 when it was not known.
    int64_t recording_stopped(int64_t recording_id);

    // What a chunk takes: events from absolute index first_index on whose ticks are in
    // [from_ticks, to_ticks], and the statistics whose ticks are in [statistics_from, to_ticks].
    struct Selection {
        uint64_t first_index;
        int64_t from_ticks;
        int64_t to_ticks;
        int64_t statistics_from;
    };
    void collect(const Selection& selection, const EntryLookup& entries, ChunkContent* out) const;

    uint64_t end_index() const { return base_index_ + events_.size(); }
    size_t size() const { return events_.size(); }
    // Drops what no destination needs any more: keeps events from absolute index keep_from_index
    // on (the file= recording's unwritten part), events and statistics from keep_from_ticks on,
    // and whatever a running recording (recording_started) still needs. Stacks no kept event
    // refers to are forgotten once they outnumber the kept ones (then it returns true: the ids of
    // the forgotten stacks name nothing any more, and will never be handed out again; kept stacks
    // keep theirs), so the store holds what is pending, not every stack ever seen.
    bool trim(uint64_t keep_from_index, int64_t keep_from_ticks);
    // Thread keys the kept events refer to.
    std::unordered_set<uint64_t> referenced_threads() const;
    size_t stack_count() const { return stacks_.size(); }

private:
    std::deque<StackTraceRequestEvent> events_;
    uint64_t base_index_ = 0;  // absolute index of events_.front()
    std::vector<StatisticsEvent> statistics_;
    std::map<int64_t, int64_t> running_;  // recording id -> start ticks
    std::unordered_map<std::string, uint64_t> stack_ids_;      // content key -> id
    std::unordered_map<uint64_t, StackTraceEntry> stacks_;      // by id
    uint64_t next_stack_id_ = 1;           // never reused, see above
    size_t stacks_after_last_pass_ = 0;    // what trim() last found, see there
};

}  // namespace stackreq
