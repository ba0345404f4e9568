// jmethodID -> class, name, descriptor, modifiers and line table, cached. Methods of
// unloaded classes resolve to an "unknown" entry instead of failing. Emitter context only.
#pragma once

#include <jvmti.h>

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "chunk_writer/jfr_chunk.h"

namespace stackreq {

class MethodResolver {
public:
    explicit MethodResolver(jvmtiEnv* jvmti) : jvmti_(jvmti) {}

    // The JNIEnv of the thread that drains now (local references are freed through it).
    void set_jni(JNIEnv* jni) { jni_ = jni; }
    // Returns the MethodEntry id for method (stable for the life of the agent) and sets *line
    // to the line of bci (-1 when bci < 0 or the method has no line table).
    uint64_t resolve(jmethodID method, int32_t bci, int32_t* line);
    // The MethodEntry id of a native function (native=on): class = the library's file name,
    // method = the function's name, as the frames of native code show in JFR readers.
    uint64_t resolve_native(const std::string& library, const std::string& function);
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
    std::unordered_map<std::string, uint64_t> native_ids_;  // library '\0' function -> id
    std::vector<MethodEntry> entries_;  // entries_[id - 1]
};

}  // namespace stackreq
