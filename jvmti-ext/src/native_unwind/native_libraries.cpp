#include "native_unwind/native_libraries.h"

#include <elf.h>
#include <link.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace stackreq {

namespace {

struct Snapshot {
    std::vector<CodeRange> ranges;  // sorted by start
};

std::atomic<const Snapshot*> g_current{nullptr};
std::mutex g_refresh_mutex;
// Kept for the life of the process, never destroyed (not even by exit's static destructors,
// while other threads still take signals): a handler may hold any published snapshot or table.
std::vector<std::unique_ptr<Snapshot>>& g_snapshots = *new std::vector<std::unique_ptr<Snapshot>>();
std::map<std::pair<uintptr_t, std::string>, std::unique_ptr<UnwindTable>>& g_tables =
    *new std::map<std::pair<uintptr_t, std::string>, std::unique_ptr<UnwindTable>>();
unsigned long long g_seen_adds = 0;
unsigned long long g_seen_subs = 0;

struct LoaderCounters {
    unsigned long long adds = 0;
    unsigned long long subs = 0;
};

int read_counters(dl_phdr_info* info, size_t size, void* data) {
    if (size < offsetof(dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) return 1;
    auto* counters = static_cast<LoaderCounters*>(data);
    counters->adds = info->dlpi_adds;
    counters->subs = info->dlpi_subs;
    return 1;
}

// Runs under the loader's lock, so no object can be unloaded while its image is read.
int add_object(dl_phdr_info* info, size_t, void* data) {
    auto* snapshot = static_cast<Snapshot*>(data);
    const uint8_t* eh_frame_hdr = nullptr;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type == PT_GNU_EH_FRAME) {
            eh_frame_hdr = reinterpret_cast<const uint8_t*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
        }
    }
    const auto key = std::make_pair(static_cast<uintptr_t>(info->dlpi_addr),
                                    std::string(info->dlpi_name != nullptr ? info->dlpi_name : ""));
    auto found = g_tables.find(key);
    if (found == g_tables.end()) {
        auto table = std::make_unique<UnwindTable>();
        if (eh_frame_hdr != nullptr) table->build(info->dlpi_addr, eh_frame_hdr);
        found = g_tables.emplace(key, std::move(table)).first;
    }
    const UnwindTable& table = *found->second;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr)& segment = info->dlpi_phdr[i];
        if (segment.p_type != PT_LOAD || (segment.p_flags & PF_X) == 0 || segment.p_memsz == 0) continue;
        const uintptr_t start = info->dlpi_addr + segment.p_vaddr;
        snapshot->ranges.push_back(CodeRange{start, start + segment.p_memsz, table.view()});
    }
    return 0;
}

}  // namespace

bool NativeLibraries::refresh() {
    std::lock_guard<std::mutex> guard(g_refresh_mutex);
    LoaderCounters counters;
    dl_iterate_phdr(read_counters, &counters);
    if (g_current.load(std::memory_order_relaxed) != nullptr && counters.adds == g_seen_adds &&
        counters.subs == g_seen_subs) {
        return false;
    }
    auto snapshot = std::make_unique<Snapshot>();
    dl_iterate_phdr(add_object, snapshot.get());
    std::sort(snapshot->ranges.begin(), snapshot->ranges.end(),
              [](const CodeRange& a, const CodeRange& b) { return a.start < b.start; });
    g_seen_adds = counters.adds;
    g_seen_subs = counters.subs;
    g_current.store(snapshot.get(), std::memory_order_release);
    g_snapshots.push_back(std::move(snapshot));
    return true;
}

const CodeRange* NativeLibraries::find(uintptr_t pc) {
    const Snapshot* snapshot = g_current.load(std::memory_order_acquire);
    if (snapshot == nullptr) return nullptr;
    const CodeRange* ranges = snapshot->ranges.data();
    size_t low = 0, high = snapshot->ranges.size();  // first range starting above pc
    while (low < high) {
        const size_t middle = low + (high - low) / 2;
        if (ranges[middle].start <= pc) low = middle + 1;
        else high = middle;
    }
    if (low == 0 || pc >= ranges[low - 1].end) return nullptr;
    return &ranges[low - 1];
}

size_t NativeLibraries::size() {
    const Snapshot* snapshot = g_current.load(std::memory_order_acquire);
    return snapshot == nullptr ? 0 : snapshot->ranges.size();
}

size_t NativeLibraries::row_bytes() {
    std::lock_guard<std::mutex> guard(g_refresh_mutex);
    size_t bytes = 0;
    for (const auto& table : g_tables) bytes += table.second->rows().size() * sizeof(UnwindRow);
    return bytes;
}

}  // namespace stackreq
