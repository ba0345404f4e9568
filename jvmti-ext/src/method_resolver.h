// jmethodID -> class, name, descriptor, modifiers and line table, cached. Methods of
// unloaded classes resolve to an "unknown" entry instead of failing. Emitter context only.
#pragma once

#include <jvmti.h>

#include <unordered_map>
#include <utility>
#include <vector>

#include "jfr_chunk.h"

namespace stackreq {

class MethodResolver {
public:
    explicit MethodResolver(jvmtiEnv* jvmti) : jvmti_(jvmti) {}

    // The JNIEnv of the thread that drains now (local references are freed through it).
    void set_jni(JNIEnv* jni) { jni_ = jni; }
    // Returns the MethodEntry id for method (stable for the life of the agent) and sets *line
    // to the line of bci (-1 when bci < 0 or the method has no line table).
    uint64_t resolve(jmethodID method, int32_t bci, int32_t* line);
    const MethodEntry* entry(uint64_t id) const;
    size_t size() const { return entries_.size(); }

private:
    struct Cached {
        uint64_t id;
        std::vector<std::pair<jlocation, jint>> lines;  // sorted by start location
    };
    Cached& lookup(jmethodID method);
    static int32_t line_in(const Cached& cached, int32_t bci);

    jvmtiEnv* jvmti_;
    JNIEnv* jni_ = nullptr;
    std::unordered_map<jmethodID, Cached> cache_;
    std::vector<MethodEntry> entries_;  // entries_[id - 1]
};

}  // namespace stackreq
