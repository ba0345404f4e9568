#include "emitter/compiled_methods.h"

#include <jvmticmlr.h>

#include <algorithm>
#include <cstring>

#include "emitter/word_hash.h"

namespace stackreq {

uint64_t CompiledMethods::chain_hash(const jmethodID* methods, const jint* bcis, int32_t depth) {
    WordHash hash;
    for (int32_t i = 0; i < depth; i++) {
        hash.add(reinterpret_cast<uintptr_t>(methods[i])).add(static_cast<uint32_t>(bcis[i]));
    }
    return hash.value();
}

CompiledMethods::TopHashes::TopHashes(const CallFrame* frames, int32_t count) {
    WordHash hash;
    depth_ = std::min<int32_t>(count, kMaxDepth);
    for (int32_t i = 0; i < depth_; i++) {
        hash.add(reinterpret_cast<uintptr_t>(frames[i].method)).add(static_cast<uint32_t>(frames[i].bci_or_marker));
        hashes_[i] = hash.value();
    }
}

bool CompiledMethods::TopHashes::matches(const Chain& chain) const {
    return chain.depth > 0 && chain.depth <= static_cast<uint32_t>(depth_) && hashes_[chain.depth - 1] == chain.hash;
}

void CompiledMethods::on_load(jmethodID id, uintptr_t start, uint32_t size, const void* compile_info, bool native) {
    Method method{id, start, size, native, {}, {}};
    for (auto* record = static_cast<const jvmtiCompiledMethodLoadRecordHeader*>(compile_info); record != nullptr;
         record = record->next) {
        if (record->kind != JVMTI_CMLR_INLINE_INFO) continue;
        auto* inline_info = reinterpret_cast<const jvmtiCompiledMethodLoadInlineRecord*>(record);
        for (jint p = 0; p < inline_info->numpcs; p++) {
            const PCStackInfo& info = inline_info->pcinfo[p];
            const uintptr_t pc = reinterpret_cast<uintptr_t>(info.pc);
            if (pc < start || pc - start > size || info.numstackframes <= 0) continue;
            method.chains.push_back(Chain{static_cast<uint32_t>(pc - start), static_cast<uint32_t>(info.numstackframes),
                                          chain_hash(info.methods, info.bcis, info.numstackframes),
                                          static_cast<uint32_t>(method.frames.size())});
            for (jint f = 0; f < info.numstackframes; f++) method.frames.emplace_back(info.bcis[f], info.methods[f]);
        }
    }
    std::stable_sort(method.chains.begin(), method.chains.end(),
                     [](const Chain& a, const Chain& b) { return a.offset < b.offset; });
    // A lookup takes the first record after a PC, so a run of records with one chain answers
    // like its last record alone: only that one is kept.
    size_t kept = 0;
    for (const Chain& chain : method.chains) {
        if (kept > 0 && method.chains[kept - 1].hash == chain.hash && method.chains[kept - 1].depth == chain.depth) {
            method.chains[kept - 1].offset = chain.offset;
        } else {
            method.chains[kept++] = chain;
        }
    }
    method.chains.resize(kept);
    method.chains.shrink_to_fit();
    // The frames of the chains no longer kept go too.
    std::vector<CallFrame> frames;
    for (Chain& chain : method.chains) {
        const uint32_t first = static_cast<uint32_t>(frames.size());
        const auto chain_frames = method.frames.begin() + chain.first;
        frames.insert(frames.end(), chain_frames, chain_frames + chain.depth);
        chain.first = first;
    }
    method.frames.swap(frames);
    std::lock_guard<std::mutex> lock(mutex_);
    // Code at these addresses was freed before (its unload event may still be on its way).
    auto end = methods_.lower_bound(start + size);
    auto first = methods_.lower_bound(start);
    if (first != methods_.begin()) {
        auto before = std::prev(first);
        if (before->first + before->second.size > start) first = before;
    }
    methods_.erase(first, end);
    methods_.emplace(start, std::move(method));
}

void CompiledMethods::on_unload(uintptr_t start) {
    std::lock_guard<std::mutex> lock(mutex_);
    methods_.erase(start);
}

void CompiledMethods::on_generated(const char* name, uintptr_t start, uintptr_t size) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (std::strcmp(name, "Interpreter") != 0) {
        vm_code_[start] = start + size;
        return;
    }
    interpreter_start_ = start;
    interpreter_end_ = start + size;
}

bool CompiledMethods::in_vm_code(uintptr_t pc) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return in_vm_code_locked(pc);
}

bool CompiledMethods::in_vm_code_locked(uintptr_t pc) const {
    auto next = vm_code_.upper_bound(pc);
    return next != vm_code_.begin() && pc < std::prev(next)->second;
}

int32_t CompiledMethods::type_top_frames(uintptr_t pc, CallFrame* frames, int32_t count) const {
    if (count <= 0 || pc == 0 || frames[0].type == FrameType::kNative) return 0;
    std::lock_guard<std::mutex> lock(mutex_);
    if (pc >= interpreter_start_ && pc < interpreter_end_) {
        frames[0].type = FrameType::kInterpreted;
        return 1;
    }
    const Method* method = method_at(pc);
    if (method == nullptr) return 0;
    const uint32_t offset = static_cast<uint32_t>(pc - method->start);
    const TopHashes top(frames, count);
    auto after = std::upper_bound(method->chains.begin(), method->chains.end(), offset,
                                  [](uint32_t value, const Chain& chain) { return value < chain.offset; });
    const Chain* found = after != method->chains.end() && top.matches(*after) ? &*after : nullptr;
    // When the walked frames are not that record's chain (AsyncGetCallTrace passes over records
    // without a scope; code unloaded and replaced in between), a chain of the same method that
    // is exactly the walked frames is taken.
    for (auto candidate = method->chains.begin(); found == nullptr && candidate != method->chains.end(); ++candidate) {
        if (top.matches(*candidate)) found = &*candidate;
    }
    return found == nullptr ? 0 : type_chain(*found, frames);
}

int32_t CompiledMethods::type_caller_frames(uintptr_t pc, CallFrame* frames, int32_t count) const {
    if (count <= 0 || pc == 0) return 0;
    const bool native = frames[0].type == FrameType::kNative;
    std::lock_guard<std::mutex> lock(mutex_);
    if (pc >= interpreter_start_ && pc < interpreter_end_) {
        if (!native) frames[0].type = FrameType::kInterpreted;
        return 1;
    }
    const Method* method = method_at(pc);
    if (method == nullptr) return 0;
    if (native) return method->id == frames[0].method ? 1 : 0;
    // The kept record of a run of equal chains is its last one: the first kept at or after pc
    // is the chain of pc's own record.
    const uint32_t offset = static_cast<uint32_t>(pc - method->start);
    auto at = std::lower_bound(method->chains.begin(), method->chains.end(), offset,
                               [](const Chain& chain, uint32_t value) { return chain.offset < value; });
    if (at == method->chains.end() || !TopHashes(frames, count).matches(*at)) return 0;
    return type_chain(*at, frames);
}

int32_t CompiledMethods::append_frames_at(uintptr_t pc, bool unbuilt, std::vector<CallFrame>* out) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const Method* method = method_at(pc);
    if (method == nullptr) return -1;
    if (method->native) {
        out->emplace_back(-1, method->id, FrameType::kNative);
        return 1;
    }
    if (unbuilt) {
        out->emplace_back(0, method->id, FrameType::kCompiled);
        return 1;
    }
    const uint32_t offset = static_cast<uint32_t>(pc - method->start);
    auto at = std::lower_bound(method->chains.begin(), method->chains.end(), offset,
                               [](const Chain& chain, uint32_t value) { return chain.offset < value; });
    if (at == method->chains.end()) return -1;
    for (uint32_t i = 0; i < at->depth; i++) {
        CallFrame frame = method->frames[at->first + i];
        frame.type = i + 1 < at->depth ? FrameType::kInlined : FrameType::kCompiled;
        out->push_back(frame);
    }
    return static_cast<int32_t>(at->depth);
}

bool CompiledMethods::compiled_method_at(uintptr_t pc, jmethodID* id) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const Method* method = method_at(pc);
    if (method != nullptr) *id = method->id;
    return method != nullptr;
}

bool CompiledMethods::knows(uintptr_t pc) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return (pc >= interpreter_start_ && pc < interpreter_end_) || method_at(pc) != nullptr || in_vm_code_locked(pc);
}

const CompiledMethods::Method* CompiledMethods::method_at(uintptr_t pc) const {
    auto next_method = methods_.upper_bound(pc);
    if (next_method == methods_.begin()) return nullptr;
    const Method& method = std::prev(next_method)->second;
    return pc - method.start < method.size ? &method : nullptr;
}

int32_t CompiledMethods::type_chain(const Chain& chain, CallFrame* frames) {
    const int32_t depth = static_cast<int32_t>(chain.depth);
    for (int32_t i = 0; i + 1 < depth; i++) frames[i].type = FrameType::kInlined;
    frames[depth - 1].type = FrameType::kCompiled;
    return depth;
}

}  // namespace stackreq
