// The perf events the agent knows, by the names `perf list` prints, and the perf_event_attr
// each one needs as a group leader (sampling) or as a group member (counting only).
#pragma once

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>

namespace stackreq_perf {

// What a counter's value measures: nanoseconds for the clock events, occurrences otherwise.
enum class EventUnit { kNanos, kCount };

constexpr size_t kEventNameMax = 40;
// Events in one group (leader + members): one read() returns them all.
constexpr int kMaxGroupEvents = 8;

struct EventSpec {
    char name[kEventNameMax];  // as the user wrote it (perf list spelling or a perf alias)
    uint32_t type;             // PERF_TYPE_HARDWARE, _SOFTWARE or _HW_CACHE
    uint64_t config;
    EventUnit unit;
    uint64_t default_period;   // ns for kNanos, occurrences for kCount
};

// Looks a name up: generic hardware and software events (and the aliases perf accepts for
// them, e.g. cpu-cycles, faults, cs) and every HW cache event <cache>-<op>[-misses], e.g.
// L1-dcache-load-misses, LLC-loads, dTLB-store-misses. Case-sensitive, like perf.
bool find_event(const char* name, EventSpec* out);

// Every name find_event accepts, canonical spellings first; for tests and the help line.
// Returns how many there are; fills at most max entries of out (out may be null with max 0).
size_t all_events(EventSpec* out, size_t max);

struct AttrRequest {
    bool leader = true;           // leader: samples every `period`; member: counts only
    uint64_t period = 0;          // leader only
    bool exclude_kernel = false;  // only when the paranoid level forbids kernel counting
};

// Fills *attr for spec. Leaders start disabled (enabled once the overflow signal is routed,
// then every overflow raises it); members follow their leader.
void build_attr(const EventSpec& spec, const AttrRequest& request, perf_event_attr* attr);

}  // namespace stackreq_perf
