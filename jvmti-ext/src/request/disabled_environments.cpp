#include "request/disabled_environments.h"

#include <atomic>
#include <mutex>

namespace stackreq {

namespace {

// More JVMTI environments than profiling agents in one JVM; a full table refuses a Disable.
constexpr int kCapacity = 64;

std::atomic<jvmtiEnv*> g_disabled[kCapacity];
// Requests look at the table only while some environment is disabled: one load otherwise.
std::atomic<int> g_count{0};
std::mutex g_writers;

}  // namespace

bool DisabledEnvironments::contains(jvmtiEnv* env) {
    if (g_count.load(std::memory_order_acquire) == 0) return false;
    for (const std::atomic<jvmtiEnv*>& entry : g_disabled) {
        if (entry.load(std::memory_order_acquire) == env) return true;
    }
    return false;
}

DisabledEnvironments::Added DisabledEnvironments::add(jvmtiEnv* env) {
    std::lock_guard<std::mutex> guard(g_writers);
    std::atomic<jvmtiEnv*>* free_entry = nullptr;
    for (std::atomic<jvmtiEnv*>& entry : g_disabled) {
        jvmtiEnv* held = entry.load(std::memory_order_relaxed);
        if (held == env) return Added::kAlready;
        if (held == nullptr && free_entry == nullptr) free_entry = &entry;
    }
    if (free_entry == nullptr) return Added::kFull;
    free_entry->store(env, std::memory_order_release);
    g_count.fetch_add(1, std::memory_order_acq_rel);
    return Added::kYes;
}

bool DisabledEnvironments::remove(jvmtiEnv* env) {
    std::lock_guard<std::mutex> guard(g_writers);
    for (std::atomic<jvmtiEnv*>& entry : g_disabled) {
        if (entry.load(std::memory_order_relaxed) == env) {
            entry.store(nullptr, std::memory_order_release);
            g_count.fetch_sub(1, std::memory_order_acq_rel);
            return true;
        }
    }
    return false;
}

}  // namespace stackreq
