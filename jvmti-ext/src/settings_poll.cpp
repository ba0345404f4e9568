#include "settings_poll.h"

#include <atomic>
#include <cstdint>

#include "agent_state.h"
#include "log.h"

namespace stackreq {

namespace {

constexpr int64_t kPollPeriodNanos = 10 * 1000000;

struct PollState {
    jclass bootstrap = nullptr;
    jmethodID poll = nullptr;
    std::atomic<bool> started{false};
    int64_t last_poll = 0;  // emitter thread only
};

PollState& poll_state() {
    static PollState state;
    return state;
}

}  // namespace

bool SettingsPoll::start(JNIEnv* jni) {
    PollState& p = poll_state();
    if (p.started.load(std::memory_order_acquire)) return true;
    jclass bootstrap = jni->FindClass("io/stackreq/jfr/internal/Bootstrap");
    jmethodID poll = bootstrap == nullptr ? nullptr : jni->GetStaticMethodID(bootstrap, "pollSettings", "()V");
    if (poll == nullptr) {
        jni->ExceptionClear();
        Log::warn("Bootstrap.pollSettings() not found: JFR settings changes will not reach the request gate");
        return false;
    }
    p.bootstrap = static_cast<jclass>(jni->NewGlobalRef(bootstrap));
    p.poll = poll;
    p.started.store(true, std::memory_order_release);
    return true;
}

void SettingsPoll::poll_if_due(JNIEnv* jni) {
    PollState& p = poll_state();
    if (!p.started.load(std::memory_order_acquire)) return;
    int64_t now = monotonic_ticks();
    if (now - p.last_poll < kPollPeriodNanos) return;
    p.last_poll = now;
    jni->CallStaticVoidMethod(p.bootstrap, p.poll);
    if (jni->ExceptionCheck()) {
        jni->ExceptionDescribe();
        jni->ExceptionClear();
    }
}

}  // namespace stackreq
