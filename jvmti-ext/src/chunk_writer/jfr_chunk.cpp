#include "chunk_writer/jfr_chunk.h"

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "chunk_writer/jfr_buffer.h"
#include "chunk_writer/jfr_hash.h"
#include "chunk_writer/jfr_metadata.h"

namespace stackreq {

namespace {

using namespace jfr;

constexpr size_t kHeaderSize = 68;
constexpr uint64_t kTicksPerSecond = 1000000000;
// Bytes 64..67 of the header: file state 0 (finished), flags bit 0 = compressed integers.
// Bit 1 (final chunk) stays clear: the file may go on.
constexpr uint32_t kHeaderFeatures = 1;
constexpr size_t kMaxEventSize = 80;  // every stackreq event field is a varint, a byte or a pooled string
// What an unresolved method is written as. Readers assume every method has a class and a
// descriptor: `jfr print` (17, 25) fails with a NullPointerException on a null class and
// parses the descriptor's parentheses. '<' and '>' cannot occur in a real method name.
const std::string kUnknownName = "<unknown>";
const std::string kUnknownDescriptor = "()V";

// Id -> position in a content vector. The emitter's ids are dense within a chunk (methods from 1,
// stacks the recent ones of a counter that never goes back), so a plain vector over
// [min id, max id] answers the per-event lookups; sparse ids fall back to a hash map.
class IdIndex {
public:
    template <typename Entry>
    bool build(const std::vector<Entry>& entries, std::string* error, const char* what) {
        uint64_t min_id = entries.empty() ? 0 : entries.front().id;
        uint64_t max_id = 0;
        for (const Entry& e : entries) {
            max_id = e.id > max_id ? e.id : max_id;
            min_id = e.id < min_id ? e.id : min_id;
        }
        base_ = min_id;
        dense_ = max_id - min_id <= 4 * entries.size() + 1024;
        if (dense_) dense_index_.assign(entries.empty() ? 0 : max_id - min_id + 1, -1);
        for (size_t i = 0; i < entries.size(); i++) {
            uint64_t id = entries[i].id;
            if (id == 0 || find(id) >= 0) {
                *error = std::string(what) + " id " + std::to_string(id) + (id == 0 ? " is 0" : " is defined twice");
                return false;
            }
            if (dense_) {
                dense_index_[id - base_] = static_cast<int64_t>(i);
            } else {
                sparse_index_.emplace(id, i);
            }
        }
        return true;
    }
    int64_t find(uint64_t id) const {
        if (dense_) return id >= base_ && id - base_ < dense_index_.size() ? dense_index_[id - base_] : -1;
        auto found = sparse_index_.find(id);
        return found == sparse_index_.end() ? -1 : static_cast<int64_t>(found->second);
    }

private:
    bool dense_ = true;
    uint64_t base_ = 0;  // the id of dense_index_[0]
    std::vector<int64_t> dense_index_;
    std::unordered_map<uint64_t, size_t> sparse_index_;
};

// A derived pool (Symbol, Package, Class): distinct values in first-use order, each with a
// content key (see jfr_hash.h). A rare hash collision probes to the next free key.
template <typename Value>
class DerivedPool {
public:
    explicit DerivedPool(uint64_t seed) : seed_(seed) {}

    uint64_t intern(const std::string& identity, const Value& value) {
        auto found = keys_.find(identity);
        if (found != keys_.end()) return found->second;
        uint64_t key = KeyHash(seed_).bytes(identity.data(), identity.size()).key();
        while (taken_.count(key) != 0) key = key + 1 >= (1ull << 62) ? 1 : key + 1;
        taken_.insert(key);
        keys_.emplace(identity, key);
        entries_.push_back({key, value});
        return key;
    }
    struct Entry {
        uint64_t key;
        Value value;
    };
    const std::vector<Entry>& entries() const { return entries_; }

private:
    uint64_t seed_;
    std::unordered_map<std::string, uint64_t> keys_;
    std::unordered_set<uint64_t> taken_;
    std::vector<Entry> entries_;
};

struct ClassValue {
    uint64_t name;
    uint64_t package;
    int32_t modifiers;
    bool hidden;
};

class ChunkWriter {
public:
    ChunkWriter(const ChunkContent& content, std::string* out) : c_(content), buf_(out) {}

    bool write(std::string* out, std::string* error) {
        if (!set_scale(error)) return false;
        request_type_ = c_.request_event_type_id != 0 ? c_.request_event_type_id : uint64_t{kStackTraceRequest};
        if (request_type_ == kMetadataEventType || request_type_ == kCheckpointEventType ||
            (request_type_ >= kTypeIdBase && request_type_ < kTypeIdEnd && request_type_ != kStackTraceRequest)) {
            *error = "request_event_type_id " + std::to_string(request_type_) + " is reserved";
            return false;
        }
        if (!methods_.build(c_.methods, error, "method") || !stacks_.build(c_.stacks, error, "stack trace") ||
            !threads_.build(c_.threads, error, "thread") || !check_frames(error)) {
            return false;
        }
        write_header();
        if (!write_events(error)) return false;
        size_t checkpoint = buf_.size();
        write_checkpoint();
        size_t metadata = buf_.size();
        write_metadata_event(&buf_, request_type_, ticks(c_.start_ticks));
        buf_.patch_be64(8, buf_.size());
        buf_.patch_be64(16, checkpoint);
        buf_.patch_be64(24, metadata);
        buf_.take(out);
        return true;
    }

private:
    bool check_frames(std::string* error) {
        for (const StackTraceEntry& stack : c_.stacks) {
            for (const StackFrameEntry& frame : stack.frames) {
                if (methods_.find(frame.method_id) < 0) {
                    *error = "stack trace " + std::to_string(stack.id) + " refers to undefined method " +
                             std::to_string(frame.method_id);
                    return false;
                }
                if (static_cast<int>(frame.type) >= kFrameTypeCount) {
                    *error = "stack trace " + std::to_string(stack.id) + " has an unknown frame type";
                    return false;
                }
            }
        }
        return true;
    }

    bool set_scale(std::string* error) {
        const TickScale& to = c_.append_to;
        if (to.ticks_per_second < 0) {
            *error = "append_to.ticks_per_second is negative";
            return false;
        }
        if (to.ticks_per_second == 0 || to.ticks_per_second == static_cast<int64_t>(kTicksPerSecond)) {
            // Same rate: a constant offset, the monotonic instant's wall time on the target's ticks.
            ticks_per_second_ = kTicksPerSecond;
            tick_offset_ = to.ticks_per_second == 0 ? 0
                                                    : (to.start_ticks - to.start_epoch_nanos) +
                                                          (c_.start_epoch_nanos - c_.start_ticks);
            scaled_ = false;
        } else {
            ticks_per_second_ = static_cast<uint64_t>(to.ticks_per_second);
            scaled_ = true;
        }
        return true;
    }

    // Event and header ticks: CLOCK_MONOTONIC nanoseconds, or the target file's ticks (see
    // ChunkContent::append_to).
    int64_t ticks(int64_t monotonic) const {
        if (!scaled_) return monotonic + tick_offset_;
        const TickScale& to = c_.append_to;
        __int128 nanos_since = static_cast<__int128>(c_.start_epoch_nanos) + (monotonic - c_.start_ticks) -
                               to.start_epoch_nanos;
        return to.start_ticks + static_cast<int64_t>(nanos_since * to.ticks_per_second / 1000000000);
    }

    void write_header() {
        static const char kMagic[4] = {'F', 'L', 'R', '\0'};
        buf_.put_bytes(kMagic, sizeof(kMagic));
        buf_.put_be16(2);
        buf_.put_be16(0);
        buf_.put_be64(0);  // chunk size, patched
        buf_.put_be64(0);  // checkpoint offset, patched
        buf_.put_be64(0);  // metadata offset, patched
        buf_.put_be64(static_cast<uint64_t>(c_.start_epoch_nanos));
        buf_.put_be64(static_cast<uint64_t>(c_.duration_nanos));
        buf_.put_be64(static_cast<uint64_t>(ticks(c_.start_ticks)));
        buf_.put_be64(ticks_per_second_);
        buf_.put_be32(kHeaderFeatures);
    }

    // Request and statistics events merged by time; marks the threads and stacks they use.
    bool write_events(std::string* error) {
        used_stack_.assign(c_.stacks.size(), false);
        used_thread_.assign(c_.threads.size(), false);
        used_requester_.assign(c_.requesters.size(), false);
        size_t s = 0;
        for (size_t i = 0; i < c_.events.size(); i++) {
            const StackTraceRequestEvent& event = c_.events[i];
            while (s < c_.statistics.size() && c_.statistics[s].start_ticks <= event.start_ticks) {
                write_statistics(c_.statistics[s++]);
            }
            if (event.thread_id != 0) {
                int64_t t = threads_.find(event.thread_id);
                if (t < 0) return undefined(error, i, "thread", event.thread_id);
                used_thread_[t] = true;
            }
            if (event.stack_trace_id != 0) {
                int64_t k = stacks_.find(event.stack_trace_id);
                if (k < 0) return undefined(error, i, "stack trace", event.stack_trace_id);
                used_stack_[k] = true;
            }
            buf_.ensure(kMaxEventSize);
            size_t start = buf_.begin_sized();
            buf_.put_varint64(request_type_);
            buf_.put_varint64(ticks(event.start_ticks));
            buf_.put_u8(0);  // duration: the request is an instant
            buf_.put_varint64(event.thread_id);
            buf_.put_varint64(event.stack_trace_id);
            buf_.put_varint64(event.user_data);
            buf_.put_bool(event.failed);
            buf_.put_bool(event.biased);
            put_requester(event.requester_id);
            buf_.end_sized(start);
        }
        while (s < c_.statistics.size()) write_statistics(c_.statistics[s++]);
        return true;
    }

    // A reference into the java.lang.String pool (write_requester_pool), as the JVM writes its
    // pooled strings; null when unknown.
    void put_requester(uint32_t id) {
        if (id == 0 || id > c_.requesters.size()) {
            buf_.put_null_string();
            return;
        }
        used_requester_[id - 1] = true;
        buf_.put_string_reference(id);
    }

    static bool undefined(std::string* error, size_t event, const char* what, uint64_t id) {
        *error = "event " + std::to_string(event) + " refers to undefined " + what + " " + std::to_string(id);
        return false;
    }

    void write_statistics(const StatisticsEvent& statistics) {
        size_t start = buf_.begin_sized();
        buf_.put_varint64(uint64_t{kRequestStatistics});
        buf_.put_varint64(ticks(statistics.start_ticks));
        for (const StatisticsField& field : statistics_fields()) buf_.put_varint64(field.value(statistics));
        buf_.end_sized(start);
    }

    uint64_t symbol(const std::string& s) { return symbols_.intern(s, s); }

    uint64_t class_key(const MethodEntry& method) {
        const std::string& name = method.class_name.empty() ? kUnknownName : method.class_name;
        size_t slash = name.rfind('/');
        // Slashed binary names as the JVM writes them ("java/lang"); the unnamed package is
        // null, as in the JVM's pools.
        uint64_t package = 0;
        if (slash != std::string::npos) {
            std::string package_name = name.substr(0, slash);
            package = packages_.intern(package_name, symbol(package_name));
        }
        std::string identity = name;
        identity.push_back(method.hidden ? 'h' : 'c');
        return classes_.intern(identity, ClassValue{symbol(name), package, method.class_modifiers, method.hidden});
    }

    // The checkpoint: every constant pool the events reach, each written by its own function.
    // The JDK reader rejects a pool with no entries, so empty pools are left out.
    void write_checkpoint() {
        collect_used_methods();
        size_t start = buf_.begin_sized();
        buf_.put_varint64(kCheckpointEventType);
        buf_.put_varint64(ticks(c_.start_ticks));
        buf_.put_u8(0);  // duration
        buf_.put_u8(0);  // delta to the previous checkpoint: this is the only one
        buf_.put_u8(0);  // checkpoint type: generic (not a flush)
        size_t frame_type_count = 0;
        for (bool used : used_frame_type_) frame_type_count += used;
        uint32_t pools = (count(used_stack_) > 0) + (count(used_thread_) > 0) + (frame_type_count > 0) +
                         (!method_order_.empty()) + (!classes_.entries().empty()) + (!packages_.entries().empty()) +
                         (!symbols_.entries().empty()) + (count(used_requester_) > 0);
        buf_.put_varint32(pools);
        write_thread_pool();
        write_stack_trace_pool();
        write_method_pool();
        write_class_pool();
        write_package_pool();
        write_symbol_pool();
        write_frame_type_pool(frame_type_count);
        write_requester_pool();
        buf_.end_sized(start);
    }

    static size_t count(const std::vector<bool>& used) {
        size_t n = 0;
        for (bool u : used) n += u;
        return n;
    }

    // Methods the used stacks reach, in first-use order, with their class, name and descriptor
    // keys (which fill the class, package and symbol pools); and the frame types used.
    void collect_used_methods() {
        std::vector<bool> used_method(c_.methods.size(), false);
        for (size_t k = 0; k < c_.stacks.size(); k++) {
            if (!used_stack_[k]) continue;
            for (const StackFrameEntry& frame : c_.stacks[k].frames) {
                size_t m = static_cast<size_t>(methods_.find(frame.method_id));
                if (!used_method[m]) {
                    used_method[m] = true;
                    method_order_.push_back(m);
                }
                used_frame_type_[static_cast<int>(frame.type)] = true;
            }
        }
        method_keys_.reserve(method_order_.size());
        for (size_t m : method_order_) {
            const MethodEntry& method = c_.methods[m];
            method_keys_.push_back({class_key(method),
                                    symbol(method.method_name.empty() ? kUnknownName : method.method_name),
                                    symbol(method.descriptor.empty() ? kUnknownDescriptor : method.descriptor)});
        }
    }

    // A pool of the items the events use: each used one as write_item writes it.
    template <typename Item, typename WriteItem>
    void write_used_pool(uint64_t type, const std::vector<Item>& items, const std::vector<bool>& used,
                         WriteItem write_item) {
        size_t n = count(used);
        if (n == 0) return;
        start_pool(type, n);
        for (size_t i = 0; i < items.size(); i++) {
            if (used[i]) write_item(items[i]);
        }
    }

    void write_thread_pool() {
        write_used_pool(kThread, c_.threads, used_thread_, [this](const ThreadEntry& thread) {
            buf_.put_varint64(thread.id);
            put_optional_string(thread.os_name);
            buf_.put_varint64(thread.os_thread_id);
            put_optional_string(thread.java_name);
            buf_.put_varint64(thread.java_thread_id);
            buf_.put_bool(thread.is_virtual);
        });
    }

    void write_stack_trace_pool() {
        write_used_pool(kStackTrace, c_.stacks, used_stack_, [this](const StackTraceEntry& stack) {
            buf_.put_varint64(stack.id);
            buf_.put_bool(stack.truncated);
            buf_.put_varint32(static_cast<uint32_t>(stack.frames.size()));
            for (const StackFrameEntry& frame : stack.frames) {
                buf_.put_varint64(frame.method_id);
                buf_.put_varint32(frame.line);
                buf_.put_varint32(frame.bci);
                buf_.put_varint64(frame_type_key(frame.type));
            }
        });
    }

    void write_method_pool() {
        if (method_order_.empty()) return;
        start_pool(kMethod, method_order_.size());
        for (size_t i = 0; i < method_order_.size(); i++) {
            const MethodEntry& method = c_.methods[method_order_[i]];
            buf_.put_varint64(method.id);
            buf_.put_varint64(method_keys_[i].type);
            buf_.put_varint64(method_keys_[i].name);
            buf_.put_varint64(method_keys_[i].descriptor);
            buf_.put_varint32(method.modifiers);
            buf_.put_bool(method.hidden);
        }
    }

    // A pool of interned entries: each one's key, then what write_value writes of its value.
    template <typename Entries, typename WriteValue>
    void write_interned_pool(uint64_t type, const Entries& entries, WriteValue write_value) {
        if (entries.empty()) return;
        start_pool(type, entries.size());
        for (const auto& entry : entries) {
            buf_.put_varint64(entry.key);
            write_value(entry.value);
        }
    }

    void write_class_pool() {
        write_interned_pool(kClass, classes_.entries(), [this](const auto& klass) {
            buf_.put_varint64(uint64_t{0});  // classLoader: null
            buf_.put_varint64(klass.name);
            buf_.put_varint64(klass.package);
            buf_.put_varint32(klass.modifiers);
            buf_.put_bool(klass.hidden);
        });
    }

    void write_package_pool() {
        write_interned_pool(kPackage, packages_.entries(), [this](uint64_t name) { buf_.put_varint64(name); });
    }

    void write_symbol_pool() {
        write_interned_pool(kSymbol, symbols_.entries(), [this](const auto& text) { buf_.put_utf8_string(text); });
    }

    void write_frame_type_pool(size_t used_count) {
        if (used_count == 0) return;
        start_pool(kFrameType, used_count);
        for (int f = 0; f < kFrameTypeCount; f++) {
            if (!used_frame_type_[f]) continue;
            buf_.put_varint64(frame_type_key(static_cast<FrameType>(f)));
            buf_.put_string(frame_type_description(static_cast<FrameType>(f)));
        }
    }

    void write_requester_pool() {
        size_t n = count(used_requester_);
        if (n == 0) return;
        start_pool(kString, n);
        for (size_t i = 0; i < c_.requesters.size(); i++) {
            if (!used_requester_[i]) continue;
            buf_.put_varint64(i + 1);
            buf_.put_string(c_.requesters[i]);
        }
    }

    void start_pool(uint64_t type, size_t count) {
        buf_.put_varint64(type);
        buf_.put_varint32(static_cast<uint32_t>(count));
    }

    void put_optional_string(const std::string& s) {
        if (s.empty()) {
            buf_.put_null_string();
        } else {
            buf_.put_string(s);
        }
    }

    const ChunkContent& c_;
    JfrBuffer buf_;
    uint64_t ticks_per_second_ = kTicksPerSecond;
    int64_t tick_offset_ = 0;
    bool scaled_ = false;
    uint64_t request_type_ = 0;
    IdIndex methods_, stacks_, threads_;
    std::vector<bool> used_stack_, used_thread_, used_requester_;
    bool used_frame_type_[kFrameTypeCount] = {};
    struct MethodKeys {
        uint64_t type, name, descriptor;
    };
    std::vector<size_t> method_order_;  // indexes into c_.methods
    std::vector<MethodKeys> method_keys_;  // method_keys_[i] for method_order_[i]
    DerivedPool<std::string> symbols_{kSymbol};
    DerivedPool<uint64_t> packages_{kPackage};
    DerivedPool<ClassValue> classes_{kClass};
};

uint64_t read_be(const unsigned char* p, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v = (v << 8) | p[i];
    return v;
}

}  // namespace

bool read_tick_scale(const void* header, size_t size, TickScale* out) {
    const unsigned char* p = static_cast<const unsigned char*>(header);
    if (size < kHeaderSize || p[0] != 'F' || p[1] != 'L' || p[2] != 'R' || p[3] != 0) return false;
    uint64_t major = read_be(p + 4, 2);
    int64_t ticks_per_second = static_cast<int64_t>(read_be(p + 56, 8));
    if ((major != 1 && major != 2) || ticks_per_second <= 0) return false;
    out->start_epoch_nanos = static_cast<int64_t>(read_be(p + 32, 8));
    out->start_ticks = static_cast<int64_t>(read_be(p + 48, 8));
    out->ticks_per_second = ticks_per_second;
    return true;
}

bool write_chunk(const ChunkContent& content, std::string* out, std::string* error) {
    ChunkWriter writer(content, out);
    if (writer.write(out, error)) return true;
    out->clear();
    return false;
}

}  // namespace stackreq
