#include "agent/running_threads.h"

#include <string>

#include "agent/agent_state.h"
#include "agent/log.h"
#include "emitter/jvmti_records.h"
#include "hotspot/hotspot_threads.h"
#include "request/thread_registry.h"

namespace stackreq {

void adopt_running_threads(jvmtiEnv* jvmti, JNIEnv* jni, jthread current) {
    HotSpotThreads hotspot;
    std::string error;
    if (!hotspot.init(jni, current, &error)) {
        Log::warn("threads started before the attach cannot be served (%s): their requests return "
                  "UNATTACHED_THREAD", error.c_str());
        return;
    }
    jint count = 0;
    jthread* threads = nullptr;
    if (jvmti->GetAllThreads(&count, &threads) != JVMTI_ERROR_NONE) {
        Log::warn("GetAllThreads failed: threads started before the attach are not served");
        return;
    }
    int adopted = 0, skipped = 0;
    for (jint i = 0; i < count; i++) {
        RunningThread running;
        if (!jni->IsSameObject(threads[i], current)) {
            if (hotspot.describe(jni, threads[i], &running) &&
                ThreadRegistry::adopt(running.tid, running.jni, running.stack_low, running.stack_size)) {
                jvmti_records().threads.on_thread_start(jvmti, jni, threads[i], running.tid);
                adopted++;
            } else {
                skipped++;  // exited meanwhile, or the registry is full
            }
        }
        jni->DeleteLocalRef(threads[i]);
    }
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(threads));
    Log::info("attach: %d running threads adopted, %d skipped", adopted, skipped);
}

}  // namespace stackreq
