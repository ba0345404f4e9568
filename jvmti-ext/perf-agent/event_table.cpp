#include "event_table.h"

#include <cstdio>
#include <cstring>
#include <ctime>

namespace stackreq_perf {

namespace {

// Default periods: a time leader samples every 1 ms; counting leaders get a period that gives
// on the order of 1000 samples/s on a busy core: cycles-like events run at ~1e9/s, cache and
// TLB accesses at ~1e8/s, misses at ~1e7/s, software events (faults, switches) at ~1e3..1e6/s.
constexpr uint64_t kTimePeriodNs = 1000000;
constexpr uint64_t kCyclesPeriod = 1000000;
constexpr uint64_t kAccessPeriod = 100000;
constexpr uint64_t kMissPeriod = 10000;
constexpr uint64_t kSoftwarePeriod = 1000;

struct GenericEvent {
    const char* name;
    uint32_t type;
    uint64_t config;
    EventUnit unit;
    uint64_t default_period;
};

// Short names for the table's columns, so that every row fits on one line.
constexpr uint32_t kHardware = PERF_TYPE_HARDWARE;
constexpr uint32_t kSoftware = PERF_TYPE_SOFTWARE;
constexpr EventUnit kCount = EventUnit::kCount;
constexpr EventUnit kNanos = EventUnit::kNanos;

// Canonical `perf list` names first, then the aliases perf also accepts.
constexpr GenericEvent kGenericEvents[] = {
    {"cycles", kHardware, PERF_COUNT_HW_CPU_CYCLES, kCount, kCyclesPeriod},
    {"instructions", kHardware, PERF_COUNT_HW_INSTRUCTIONS, kCount, kCyclesPeriod},
    {"cache-references", kHardware, PERF_COUNT_HW_CACHE_REFERENCES, kCount, kAccessPeriod},
    {"cache-misses", kHardware, PERF_COUNT_HW_CACHE_MISSES, kCount, kMissPeriod},
    {"branch-instructions", kHardware, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, kCount, kCyclesPeriod},
    {"branch-misses", kHardware, PERF_COUNT_HW_BRANCH_MISSES, kCount, kMissPeriod},
    {"bus-cycles", kHardware, PERF_COUNT_HW_BUS_CYCLES, kCount, kCyclesPeriod},
    {"stalled-cycles-frontend", kHardware, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, kCount, kCyclesPeriod},
    {"stalled-cycles-backend", kHardware, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, kCount, kCyclesPeriod},
    {"ref-cycles", kHardware, PERF_COUNT_HW_REF_CPU_CYCLES, kCount, kCyclesPeriod},
    {"cpu-clock", kSoftware, PERF_COUNT_SW_CPU_CLOCK, kNanos, kTimePeriodNs},
    {"task-clock", kSoftware, PERF_COUNT_SW_TASK_CLOCK, kNanos, kTimePeriodNs},
    {"page-faults", kSoftware, PERF_COUNT_SW_PAGE_FAULTS, kCount, kSoftwarePeriod},
    {"context-switches", kSoftware, PERF_COUNT_SW_CONTEXT_SWITCHES, kCount, kSoftwarePeriod},
    {"cpu-migrations", kSoftware, PERF_COUNT_SW_CPU_MIGRATIONS, kCount, kSoftwarePeriod},
    {"minor-faults", kSoftware, PERF_COUNT_SW_PAGE_FAULTS_MIN, kCount, kSoftwarePeriod},
    {"major-faults", kSoftware, PERF_COUNT_SW_PAGE_FAULTS_MAJ, kCount, kSoftwarePeriod},
    {"alignment-faults", kSoftware, PERF_COUNT_SW_ALIGNMENT_FAULTS, kCount, kSoftwarePeriod},
    {"emulation-faults", kSoftware, PERF_COUNT_SW_EMULATION_FAULTS, kCount, kSoftwarePeriod},
};

// The other names perf list prints (its "OR" column), and the event each stands for.
struct Alias {
    const char* name;
    const char* canonical;
};
constexpr Alias kAliases[] = {
    {"cpu-cycles", "cycles"},
    {"branches", "branch-instructions"},
    {"idle-cycles-frontend", "stalled-cycles-frontend"},
    {"idle-cycles-backend", "stalled-cycles-backend"},
    {"faults", "page-faults"},
    {"cs", "context-switches"},
    {"migrations", "cpu-migrations"},
};

const GenericEvent* generic_event(const char* name) {
    for (const GenericEvent& event : kGenericEvents) {
        if (strcmp(event.name, name) == 0) return &event;
    }
    return nullptr;
}

// HW cache events are <cache><suffix>; config = cache | op << 8 | result << 16
// (include/uapi/linux/perf_event.h, PERF_TYPE_HW_CACHE).
struct CacheName {
    const char* prefix;
    uint32_t id;
};
constexpr CacheName kCaches[] = {
    {"L1-dcache", PERF_COUNT_HW_CACHE_L1D}, {"L1-icache", PERF_COUNT_HW_CACHE_L1I},
    {"LLC", PERF_COUNT_HW_CACHE_LL},        {"dTLB", PERF_COUNT_HW_CACHE_DTLB},
    {"iTLB", PERF_COUNT_HW_CACHE_ITLB},     {"branch", PERF_COUNT_HW_CACHE_BPU},
    {"node", PERF_COUNT_HW_CACHE_NODE},
};

struct CacheOp {
    const char* suffix;
    uint32_t op;
    uint32_t result;
};
constexpr CacheOp kCacheOps[] = {
    {"-loads", PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_ACCESS},
    {"-load-misses", PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS},
    {"-stores", PERF_COUNT_HW_CACHE_OP_WRITE, PERF_COUNT_HW_CACHE_RESULT_ACCESS},
    {"-store-misses", PERF_COUNT_HW_CACHE_OP_WRITE, PERF_COUNT_HW_CACHE_RESULT_MISS},
    {"-prefetches", PERF_COUNT_HW_CACHE_OP_PREFETCH, PERF_COUNT_HW_CACHE_RESULT_ACCESS},
    {"-prefetch-misses", PERF_COUNT_HW_CACHE_OP_PREFETCH, PERF_COUNT_HW_CACHE_RESULT_MISS},
};

void fill(EventSpec* out, const char* name, uint32_t type, uint64_t config, EventUnit unit,
          uint64_t period) {
    memset(out, 0, sizeof(*out));
    snprintf(out->name, sizeof(out->name), "%s", name);
    out->type = type;
    out->config = config;
    out->unit = unit;
    out->default_period = period;
}

void fill_cache(EventSpec* out, const CacheName& cache, const CacheOp& op) {
    char name[kEventNameMax];
    size_t prefix = strlen(cache.prefix);
    memcpy(name, cache.prefix, prefix);
    strcpy(name + prefix, op.suffix);
    uint64_t config = cache.id | (uint64_t(op.op) << 8) | (uint64_t(op.result) << 16);
    uint64_t period = op.result == PERF_COUNT_HW_CACHE_RESULT_MISS ? kMissPeriod : kAccessPeriod;
    fill(out, name, PERF_TYPE_HW_CACHE, config, EventUnit::kCount, period);
}

}  // namespace

bool find_event(const char* name, EventSpec* out) {
    if (name == nullptr || strlen(name) >= kEventNameMax) return false;
    const GenericEvent* event = generic_event(name);
    for (const Alias& alias : kAliases) {
        if (event == nullptr && strcmp(alias.name, name) == 0) event = generic_event(alias.canonical);
    }
    if (event != nullptr) {
        fill(out, name, event->type, event->config, event->unit, event->default_period);
        return true;
    }
    for (const CacheName& cache : kCaches) {
        size_t prefix = strlen(cache.prefix);
        if (strncmp(name, cache.prefix, prefix) != 0) continue;
        for (const CacheOp& op : kCacheOps) {
            if (strcmp(name + prefix, op.suffix) == 0) {
                fill_cache(out, cache, op);
                return true;
            }
        }
    }
    return false;
}

size_t all_events(EventSpec* out, size_t max) {
    size_t count = 0;
    for (const GenericEvent& event : kGenericEvents) {
        if (count < max) fill(&out[count], event.name, event.type, event.config, event.unit, event.default_period);
        count++;
    }
    for (const Alias& alias : kAliases) {
        if (count < max) find_event(alias.name, &out[count]);
        count++;
    }
    for (const CacheName& cache : kCaches) {
        for (const CacheOp& op : kCacheOps) {
            if (count < max) fill_cache(&out[count], cache, op);
            count++;
        }
    }
    return count;
}

void build_attr(const EventSpec& spec, const AttrRequest& request, perf_event_attr* attr) {
    memset(attr, 0, sizeof(*attr));
    attr->size = sizeof(*attr);
    attr->type = spec.type;
    attr->config = spec.config;
    // One read() of the leader returns every member's value with its id: the handler derives
    // all deltas from a single syscall.
    attr->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
    // Same clock as stackreq's request timestamps and the JFR chunk, so samples join on time.
    attr->use_clockid = 1;
    attr->clockid = CLOCK_MONOTONIC;
    attr->exclude_hv = 1;
    attr->exclude_kernel = request.exclude_kernel ? 1 : 0;
    if (request.leader) {
        attr->sample_period = request.period;
        attr->freq = 0;
        attr->wakeup_events = 1;
        // Enabled once the signal is routed (PERF_EVENT_IOC_ENABLE); every overflow queues the
        // signal with POLL_IN and si_fd. No mmap ring is needed.
        attr->disabled = 1;
    }
}

}  // namespace stackreq_perf
