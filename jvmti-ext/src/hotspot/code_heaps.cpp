#include "hotspot/code_heaps.h"

#include "hotspot/vm_structs.h"

namespace stackreq {

namespace {

constexpr int kMaxHeaps = 8;
// A segment map entry: the number of segments back to its block's header (0 at the header),
// or this value for a segment that no block uses.
constexpr uint8_t kUnusedSegment = 0xff;
// A blob larger than this many segment-map hops (of up to 254 segments each) is not looked up.
constexpr int kMaxHops = 4096;
constexpr uint32_t kMaxFrameWords = 1u << 16;
// Where a compiled method's verified entry may lie at most, from its code's start.
constexpr uintptr_t kMaxEntryCheckBytes = 128;

// Where the fields a lookup reads lie, from gHotSpotVMStructs. JDK 11's and 17's CodeBlob keep
// their code bounds as pointers, JDK 25's and later's as offsets from the blob.
struct Layout {
    uint64_t memory_low, memory_high;  // CodeHeap::_memory's VirtualSpace::_low / _high
    uint64_t segmap_low, segmap_high;  // CodeHeap::_segmap's
    uint64_t block_used;               // HeapBlock::Header::_used in a HeapBlock
    uint64_t block_size;               // sizeof(HeapBlock): the blob follows it
    uint64_t frame_size;               // CodeBlob::_frame_size (int, words)
    bool code_as_pointers;
    uint64_t code_begin, code_end;  // CodeBlob::_code_begin/_code_end, or _code_offset/_data_offset
    uint64_t blob_fields_end;       // the highest byte a lookup reads in a blob, + 1
    uint64_t method;                // CompiledMethod::_method or nmethod::_method; 0: unknown
    // nmethod::_verified_entry_point (JDK 17, an address) or _verified_entry_offset (JDK 23+, a u2
    // from the code's start); 0: unknown.
    uint64_t verified_entry;
    bool verified_entry_as_offset;
};

Layout g_layout;
uintptr_t g_heaps[kMaxHeaps];
uint32_t g_segment_shift[kMaxHeaps];
std::atomic<int> g_heap_count{0};

template <typename T>
T load(uintptr_t address) {
    return __atomic_load_n(reinterpret_cast<const T*>(address), __ATOMIC_RELAXED);
}

bool read_layout(const VmStructs& vm, Layout* out, const char** missing) {
    uint64_t memory = 0, segmap = 0, low = 0, high = 0, header = 0, used = 0;
    if (!vm.field_offset("CodeHeap", "_memory", &memory)) *missing = "CodeHeap::_memory";
    if (!vm.field_offset("CodeHeap", "_segmap", &segmap)) *missing = "CodeHeap::_segmap";
    if (!vm.field_offset("VirtualSpace", "_low", &low)) *missing = "VirtualSpace::_low";
    if (!vm.field_offset("VirtualSpace", "_high", &high)) *missing = "VirtualSpace::_high";
    if (!vm.field_offset("HeapBlock", "_header", &header)) *missing = "HeapBlock::_header";
    if (!vm.field_offset("HeapBlock::Header", "_used", &used)) *missing = "HeapBlock::Header::_used";
    if (!vm.type_size("HeapBlock", &out->block_size)) *missing = "sizeof(HeapBlock)";
    if (!vm.field_offset("CodeBlob", "_frame_size", &out->frame_size)) *missing = "CodeBlob::_frame_size";
    out->code_as_pointers = vm.field_offset("CodeBlob", "_code_begin", &out->code_begin) &&
                            vm.field_offset("CodeBlob", "_code_end", &out->code_end);
    if (!out->code_as_pointers && (!vm.field_offset("CodeBlob", "_code_offset", &out->code_begin) ||
                                   !vm.field_offset("CodeBlob", "_data_offset", &out->code_end))) {
        *missing = "CodeBlob::_code_begin or CodeBlob::_code_offset";
    }
    if (!vm.field_offset("CompiledMethod", "_method", &out->method) &&
        !vm.field_offset("nmethod", "_method", &out->method)) {
        out->method = 0;
    }
    out->verified_entry_as_offset = !vm.field_offset("nmethod", "_verified_entry_point", &out->verified_entry) &&
                                    !vm.field_offset("CompiledMethod", "_verified_entry_point", &out->verified_entry);
    if (out->verified_entry_as_offset && !vm.field_offset("nmethod", "_verified_entry_offset", &out->verified_entry)) {
        out->verified_entry = 0;
    }
    out->memory_low = memory + low;
    out->memory_high = memory + high;
    out->segmap_low = segmap + low;
    out->segmap_high = segmap + high;
    out->block_used = header + used;
    const uint64_t code_field = out->code_as_pointers ? sizeof(uintptr_t) : sizeof(int32_t);
    out->blob_fields_end = out->frame_size + sizeof(int32_t);
    if (out->code_begin + code_field > out->blob_fields_end) out->blob_fields_end = out->code_begin + code_field;
    if (out->code_end + code_field > out->blob_fields_end) out->blob_fields_end = out->code_end + code_field;
    return *missing == nullptr;
}

// The code bounds of the blob at `blob`, whose fields lie in committed heap memory.
void code_bounds(uintptr_t blob, uintptr_t* begin, uintptr_t* end) {
    if (g_layout.code_as_pointers) {
        *begin = load<uintptr_t>(blob + g_layout.code_begin);
        *end = load<uintptr_t>(blob + g_layout.code_end);
    } else {
        *begin = blob + static_cast<uint32_t>(load<int32_t>(blob + g_layout.code_begin));
        *end = blob + static_cast<uint32_t>(load<int32_t>(blob + g_layout.code_end));
    }
}

// Whether pc, in the code [begin, end) of the compiled method at blob, lies before its verified
// entry: in the inline-cache check, which pushes nothing (the return address is on top).
bool before_verified_entry(uintptr_t blob, uintptr_t begin, uintptr_t end, uintptr_t high, uintptr_t pc) {
    // The check is a few instructions at the code's start: a PC beyond them does not read the
    // entry's field (another cache line of the header, cold in a signal handler).
    if (g_layout.verified_entry == 0 || pc - begin >= kMaxEntryCheckBytes) return false;
    uintptr_t entry = 0;
    if (g_layout.verified_entry_as_offset) {
        if (blob + g_layout.verified_entry + sizeof(uint16_t) > high) return false;
        entry = begin + load<uint16_t>(blob + g_layout.verified_entry);
    } else {
        if (blob + g_layout.verified_entry + sizeof(uintptr_t) > high) return false;
        entry = load<uintptr_t>(blob + g_layout.verified_entry);
    }
    return entry > begin && entry < end && pc < entry;
}

uint32_t frame_words_in_heap(int heap_index, uintptr_t pc, uintptr_t* method, bool* before_entry, bool* frameless) {
    const uintptr_t heap = g_heaps[heap_index];
    const uintptr_t low = load<uintptr_t>(heap + g_layout.memory_low);
    const uintptr_t high = load<uintptr_t>(heap + g_layout.memory_high);
    if (pc < low || pc >= high) return 0;
    const uintptr_t segmap = load<uintptr_t>(heap + g_layout.segmap_low);
    const uintptr_t segmap_end = load<uintptr_t>(heap + g_layout.segmap_high);
    const uint32_t shift = g_segment_shift[heap_index];
    uintptr_t segment = (pc - low) >> shift;
    for (int hop = 0;; hop++) {
        if (hop == kMaxHops || segmap + segment >= segmap_end) return 0;
        const uint8_t back = load<uint8_t>(segmap + segment);
        if (back == kUnusedSegment || back > segment) return 0;
        if (back == 0) break;
        segment -= back;
    }
    const uintptr_t block = low + (segment << shift);
    const uintptr_t blob = block + g_layout.block_size;
    if (blob + g_layout.blob_fields_end > high || load<uint8_t>(block + g_layout.block_used) == 0) return 0;
    uintptr_t begin = 0, end = 0;
    code_bounds(blob, &begin, &end);
    if (begin < blob || pc < begin || pc >= end || end > high) return 0;
    const int32_t words = load<int32_t>(blob + g_layout.frame_size);
    if (method != nullptr && g_layout.method != 0 && blob + g_layout.method + sizeof(uintptr_t) <= high) {
        *method = load<uintptr_t>(blob + g_layout.method);
    }
    if (before_entry != nullptr) *before_entry = before_verified_entry(blob, begin, end, high, pc);
    if (frameless != nullptr) *frameless = words == 0;
    return words > 0 && static_cast<uint32_t>(words) < kMaxFrameWords ? static_cast<uint32_t>(words) : 0;
}

}  // namespace

bool CodeHeaps::init(std::string* error) {
    VmStructs vm;
    if (!vm.init()) {
        *error = "libjvm publishes no gHotSpotVMStructs table";
        return false;
    }
    const char* missing = nullptr;
    Layout layout{};
    uintptr_t heaps_field = 0;
    uint64_t length = 0, data = 0, segment_shift = 0;
    if (!vm.static_address("CodeCache", "_heaps", &heaps_field)) missing = "CodeCache::_heaps";
    // JDK 11 names GrowableArray's base class GenericGrowableArray.
    if (!vm.field_offset("GrowableArrayBase", "_len", &length) &&
        !vm.field_offset("GenericGrowableArray", "_len", &length)) {
        missing = "GrowableArrayBase::_len (GenericGrowableArray::_len)";
    }
    if (!vm.field_offset("GrowableArray<int>", "_data", &data)) missing = "GrowableArray<int>::_data";
    if (!vm.field_offset("CodeHeap", "_log2_segment_size", &segment_shift)) missing = "CodeHeap::_log2_segment_size";
    if (!read_layout(vm, &layout, &missing) || missing != nullptr) {
        *error = std::string("gHotSpotVMStructs has no ") + missing;
        return false;
    }
    const uintptr_t heaps = *reinterpret_cast<const uintptr_t*>(heaps_field);
    if (heaps == 0) {
        *error = "the code cache has no heaps yet";
        return false;
    }
    const int count = *reinterpret_cast<const int32_t*>(heaps + length);
    const uintptr_t* elements = *reinterpret_cast<const uintptr_t* const*>(heaps + data);
    if (count <= 0 || count > kMaxHeaps || elements == nullptr) {
        *error = "the code cache's heap list is not as expected";
        return false;
    }
    g_layout = layout;
    for (int i = 0; i < count; i++) {
        g_heaps[i] = elements[i];
        g_segment_shift[i] = static_cast<uint32_t>(*reinterpret_cast<const int32_t*>(elements[i] + segment_shift));
        if (g_heaps[i] == 0 || g_segment_shift[i] == 0 || g_segment_shift[i] > 16) {
            *error = "a code heap is not as expected";
            return false;
        }
    }
    g_heap_count.store(count, std::memory_order_release);
    return true;
}

uint32_t CodeHeaps::frame_words_at(uintptr_t pc) { return frame_words_and_method_at(pc, nullptr); }

uint32_t CodeHeaps::frame_words_and_method_at(uintptr_t pc, uintptr_t* method, bool* before_entry,
                                              bool* frameless) {
    if (before_entry != nullptr) *before_entry = false;
    if (frameless != nullptr) *frameless = false;
    const int count = g_heap_count.load(std::memory_order_acquire);
    for (int i = 0; i < count; i++) {
        const uint32_t words = frame_words_in_heap(i, pc, method, before_entry, frameless);
        if (words != 0 || (frameless != nullptr && *frameless)) return words;
    }
    return 0;
}

void CodeHeaps::reset_for_test() { g_heap_count.store(0, std::memory_order_release); }

}  // namespace stackreq
