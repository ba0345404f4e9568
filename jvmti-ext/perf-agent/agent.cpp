// JVMTI entry points of libstackreq-perf.so, the reference perf-event agent. It uses only
// the public API: the three extension functions found by id (stackreq.h), exactly as a
// third-party profiler would.
//
//   java -agentpath:libstackreq.so
//        -agentpath:libstackreq-perf.so=event=task-clock+page-faults,interval=1ms,out=s.jsonl
//        -XX:StartFlightRecording=filename=x.jfr,+jdk.StackTraceRequest#enabled=true ...
#include <jvmti.h>

#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <unistd.h>
#include <cstring>
#include <mutex>
#include <string>

#include "agent_options.h"
#include "perf_log.h"
#include "proc_tasks.h"
#include "sample_writer.h"
#include "sampler.h"
#include "task_watcher.h"
#include "stackreq.h"

namespace stackreq_perf {

namespace {

// threads=all: how often the process's threads are listed again to sample new ones.
constexpr uint64_t kRescanNs = 5000000;
// Below one kernel tick (HZ=250 on these machines) CPU-time timers still fire once a tick.
constexpr uint64_t kTimerTickNs = 4000000;
// Arming failures past this many are logged at debug only (a thread storm must not flood).
constexpr int kLoggedArmFailures = 5;

AgentOptions g_options;
stackreq_functions g_functions;
SampleWriter g_writer;
bool g_exclude_kernel = false;
std::atomic<bool> g_profiling{false};
std::atomic<int> g_arm_failures{0};
std::mutex g_lifecycle;  // VMInit vs VMDeath vs Agent_OnUnload

// dry-run: stands in for RequestStackTrace. NOT_AVAILABLE in the samples says no event exists.
jvmtiError JNICALL no_request(jvmtiEnv*, jthread*, void*, jlong) { return JVMTI_ERROR_NOT_AVAILABLE; }

const char* engine_name() { return g_options.engine == EngineKind::kPerf ? "perf" : "cpu-timer"; }

const char* leader_name() { return g_options.engine == EngineKind::kPerf ? g_options.events[0].name : "cpu-timer"; }

void arm(pid_t tid, bool replace_stale) {
    int failed_event = 0;
    int result = Sampler::arm_thread(tid, replace_stale, &failed_event);
    if (result == 0 || result == ECANCELED) return;
    const char* event = g_options.engine == EngineKind::kPerf ? g_options.events[failed_event].name : "cpu-timer";
    if (g_arm_failures.fetch_add(1) < kLoggedArmFailures) {
        log_warn("cannot sample thread %d with '%s': %s (%s)", int(tid), event, strerror(result),
                 strerrorname_np(result));
    } else {
        log_debug("cannot sample thread %d with '%s': %s", int(tid), event, strerror(result));
    }
}

// Java threads started before VMInit (or before a load into a running JVM) get no ThreadStart;
// find their tids by name (proc_tasks.h), the thread that created the JVM by the process's name.
void arm_existing_threads(jvmtiEnv* jvmti, JNIEnv* jni, jthread current) {
    jint count = 0;
    jthread* threads = nullptr;
    if (jvmti->GetAllThreads(&count, &threads) != JVMTI_ERROR_NONE) return;
    // A task that blocks the sampling signal could never be sampled, so it is no candidate: under
    // qemu-user, qemu's own RCU thread keeps the process's name and blocks every signal, and with
    // it main had two candidates and was not sampled. The first task stays: it names the process.
    pid_t pid = getpid();
    std::vector<TaskComm> unarmed;
    for (const TaskComm& task : list_own_tasks()) {
        if (!Sampler::is_armed(task.tid) && (task.tid == pid || !task_blocks_signal(task.tid, g_options.signal))) {
            unarmed.push_back(task);
        }
    }
    std::vector<std::string> names;
    for (jint i = 0; i < count; i++) {
        if (!jni->IsSameObject(threads[i], current)) {
            jvmtiThreadInfo info;
            memset(&info, 0, sizeof(info));
            if (jvmti->GetThreadInfo(threads[i], &info) == JVMTI_ERROR_NONE && info.name != nullptr) {
                names.push_back(info.name);
            }
            jvmti->Deallocate(reinterpret_cast<unsigned char*>(info.name));
            if (info.thread_group != nullptr) jni->DeleteLocalRef(info.thread_group);
            if (info.context_class_loader != nullptr) jni->DeleteLocalRef(info.context_class_loader);
        }
        jni->DeleteLocalRef(threads[i]);
    }
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(threads));
    JavaThreadMatch match = match_java_threads(unarmed, names, pid);
    for (pid_t tid : match.tids) arm(tid, false);
    for (const std::string& unmatched : match.unmatched) {
        log_debug("thread %s, started before the agent: not sampled", unmatched.c_str());
    }
    log_debug("threads started before the agent: %zu armed, %zu not matched", match.tids.size(),
              match.unmatched.size());
}

std::string error_name(jvmtiEnv* jvmti, jvmtiError error) {
    char* name = nullptr;
    std::string text = std::to_string(int(error));
    if (jvmti->GetErrorName(error, &name) == JVMTI_ERROR_NONE && name != nullptr) {
        text += std::string(" ") + name;
        jvmti->Deallocate(reinterpret_cast<unsigned char*>(name));
    }
    return text;
}

void arm_listed(pid_t tid) { arm(tid, false); }

void finish(jvmtiEnv* jvmti) {
    TaskWatcher::stop();
    Sampler::stop();
    if (jvmti != nullptr && g_functions.disable_request_stack_trace != nullptr) {
        // Disable makes libstackreq write out every accepted request.
        jvmtiError error = g_functions.disable_request_stack_trace(jvmti);
        if (error != JVMTI_ERROR_NONE) {
            log_debug("DisableRequestStackTrace returned %s", error_name(jvmti, error).c_str());
        }
    }
    SamplerStats stats = Sampler::stats();
    g_writer.finish(stats.lost);
    char tally[2048];
    if (g_writer.errors().format(tally, sizeof(tally)) == 0) strcpy(tally, "{...}");
    log_info("%" PRIu64 " samples written to %s, %" PRIu64 " lost (ring full); RequestStackTrace results %s; %" PRIu64
             " threads sampled; %" PRIu64 " read errors, %" PRIu64
             " stray signals (queued before a thread was disarmed, or not ours)",
             g_writer.written(), g_writer.path().c_str(), stats.lost, tally, stats.armed_threads, stats.read_errors,
             stats.foreign);
    if (stats.lost > 0) log_warn("%" PRIu64 " samples lost: the writer did not keep up", stats.lost);
    if (g_writer.write_errors() > 0) {
        log_warn("writing %s failed %" PRIu64 " times", g_writer.path().c_str(), g_writer.write_errors());
    }
}

// VMInit, or a load into a running JVM: enables requests and arms every Java thread. Called with
// g_lifecycle held.
void start_sampling(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread) {
    // Requests work without it where a recording enables the event; it still prepares the
    // agent's memory ahead of the first request, and undoes this agent's Disable after a restart.
    jvmtiError enabled = g_functions.enable_request_stack_trace == nullptr
                             ? JVMTI_ERROR_NONE
                             : g_functions.enable_request_stack_trace(jvmti);
    if (enabled != JVMTI_ERROR_NONE) {
        log_warn("EnableRequestStackTrace returned %s; every sample will record the error of its request",
                 error_name(jvmti, enabled).c_str());
    }
    SamplerConfig config;
    config.engine = g_options.engine;
    config.events = g_options.events;
    config.event_count = g_options.event_count;
    config.period = g_options.period;
    config.exclude_kernel = g_exclude_kernel;
    config.signal = g_options.signal;
    config.env = jvmti;
    config.request = g_options.dry_run ? no_request : g_functions.request_stack_trace;
    config.biased = g_options.biased;
    std::string error;
    if (!Sampler::start(config, &error)) {
        log_error("not profiling: %s", error.c_str());
        g_writer.abandon();
        return;
    }
    StreamInfo info;
    info.engine = engine_name();
    if (g_options.engine == EngineKind::kPerf) {
        for (int i = 0; i < g_options.event_count; i++) info.names[i] = g_options.events[i].name;
        info.count = g_options.event_count;
    } else {
        info.names[0] = "cpu-timer";
        info.count = 1;
    }
    info.period = g_options.period;
    info.period_is_time = g_options.period_is_time;
    info.pid = int(getpid());
    if (!g_writer.start(info, Sampler::pop, Sampler::wait_for_samples, Sampler::wake_writer, g_options.signal,
                        &error)) {
        Sampler::stop();
        log_error("not profiling: %s", error.c_str());
        g_writer.abandon();
        return;
    }
    g_profiling.store(true);
    arm(current_tid(), true);
    if (g_options.all_threads) {
        if (!TaskWatcher::start(kRescanNs, arm_listed, Sampler::disarm_thread)) {
            log_warn("cannot start the thread watcher: threads=all samples the threads running now only");
        }
    } else {
        arm_existing_threads(jvmti, jni, thread);
    }
    log_info("sampling %s threads: engine=%s leader=%s period=%" PRIu64 " %s%s, signal %d, samples to %s%s%s",
             g_options.all_threads ? "all" : "Java", engine_name(), leader_name(), g_options.period,
             g_options.period_is_time ? "ns" : "events",
             g_exclude_kernel ? " (user space only)" : "", g_options.signal, g_writer.path().c_str(),
             g_options.biased ? ", biased (no ucontext: stacks of threads in native code only)" : "",
             g_options.dry_run ? ", dry-run (no requests)" : "");
}

void JNICALL on_vm_init(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread) {
    std::lock_guard<std::mutex> guard(g_lifecycle);
    start_sampling(jvmti, jni, thread);
}

void JNICALL on_thread_start(jvmtiEnv*, JNIEnv*, jthread) {
    if (g_profiling.load()) arm(current_tid(), true);
}

void JNICALL on_thread_end(jvmtiEnv*, JNIEnv*, jthread) { Sampler::disarm_thread(current_tid()); }

void JNICALL on_vm_death(jvmtiEnv* jvmti, JNIEnv*) {
    std::lock_guard<std::mutex> guard(g_lifecycle);
    if (g_profiling.exchange(false)) finish(jvmti);
}

// Parses the options and checks what sampling needs: the extension functions and the events.
// Logs and returns false on any failure.
bool configure(jvmtiEnv* jvmti, const char* text) {
    std::string error;
    if (!parse_agent_options(text, &g_options, &error)) {
        log_error("%s", error.c_str());
        return false;
    }
    set_log_level(g_options.log_level);
    jvmtiError found = stackreq_find_extension_functions(jvmti, &g_functions.request_stack_trace,
                                                         &g_functions.enable_request_stack_trace,
                                                         &g_functions.disable_request_stack_trace);
    if (found == JVMTI_ERROR_NOT_AVAILABLE) {
        log_error("JVMTI extension %s not found: -agentpath:/path/to/libstackreq.so must come before "
                  "-agentpath:libstackreq-perf.so on the command line, or be loaded into a running JVM first "
                  "(or use a JDK that has RequestStackTrace)",
                  STACKREQ_ID_REQUEST_STACK_TRACE);
        return false;
    }
    if (found != JVMTI_ERROR_NONE) {
        log_error("GetExtensionFunctions failed: %s", error_name(jvmti, found).c_str());
        return false;
    }
    if (!probe_engine(g_options, &g_exclude_kernel, &error)) {
        log_error("%s", error.c_str());
        return false;
    }
    if (g_exclude_kernel) log_info("kernel counting not permitted here: counting user space only");
    if (g_options.engine == EngineKind::kCpuTimer && g_options.period < kTimerTickNs) {
        log_warn("engine=cpu-timer: CPU-time timers fire at most once per kernel tick (about 4 ms here), so "
                 "expect at most ~250 samples/s per thread, not one every %" PRIu64 " ns; engine=perf gives 1 kHz",
                 g_options.period);
    }
    if (!g_writer.open(g_options.out, &error)) {
        log_error("%s", error.c_str());
        return false;
    }
    return true;
}

bool enable_thread_events(jvmtiEnv* jvmti, bool vm_init) {
    jvmtiEventCallbacks callbacks;
    memset(&callbacks, 0, sizeof(callbacks));
    callbacks.VMInit = on_vm_init;
    callbacks.VMDeath = on_vm_death;
    callbacks.ThreadStart = on_thread_start;
    callbacks.ThreadEnd = on_thread_end;
    jvmtiError error_code = jvmti->SetEventCallbacks(&callbacks, sizeof(callbacks));
    const jvmtiEvent events[] = {JVMTI_EVENT_VM_DEATH, JVMTI_EVENT_THREAD_START, JVMTI_EVENT_THREAD_END,
                                 JVMTI_EVENT_VM_INIT};
    for (jvmtiEvent event : events) {
        if (event == JVMTI_EVENT_VM_INIT && !vm_init) continue;
        if (error_code == JVMTI_ERROR_NONE) error_code = jvmti->SetEventNotificationMode(JVMTI_ENABLE, event, nullptr);
    }
    if (error_code != JVMTI_ERROR_NONE) {
        log_error("cannot enable JVMTI events: %s", error_name(jvmti, error_code).c_str());
        return false;
    }
    return true;
}

jvmtiEnv* new_environment(JavaVM* vm) {
    jvmtiEnv* jvmti = nullptr;
    if (vm->GetEnv(reinterpret_cast<void**>(&jvmti), JVMTI_VERSION_1_2) != JNI_OK || jvmti == nullptr) {
        log_error("cannot get a JVMTI environment");
        return nullptr;
    }
    return jvmti;
}

// The environment of the first load (at startup or into the running JVM): later loads (stop,
// start again) reuse it and every other piece of state, so that start/stop cycles leave nothing
// behind.
jvmtiEnv* g_environment = nullptr;
bool g_thread_events_enabled = false;

jint load(JavaVM* vm, const char* text) {
    jvmtiEnv* jvmti = new_environment(vm);
    if (jvmti == nullptr || !configure(jvmti, text)) return JNI_ERR;
    if (g_options.action == AgentAction::kStop) {
        log_error("option 'stop' is for a load into a running JVM, after one that started sampling");
        g_writer.abandon();
        return JNI_ERR;
    }
    if (!enable_thread_events(jvmti, true)) {
        g_writer.abandon();
        return JNI_ERR;
    }
    g_environment = jvmti;
    g_thread_events_enabled = true;
    return JNI_OK;
}

jint stop_attached() {
    if (!g_profiling.exchange(false)) {
        log_warn("stop: not sampling");
        return JNI_OK;
    }
    finish(g_environment);
    log_info("stopped; samples in %s", g_writer.path().c_str());
    return JNI_OK;
}

jint attach(JavaVM* vm, const char* text) {
    std::lock_guard<std::mutex> guard(g_lifecycle);
    AgentOptions parsed;
    std::string error;
    if (!parse_agent_options(text, &parsed, &error)) {
        log_error("%s", error.c_str());
        return JNI_ERR;
    }
    if (parsed.action == AgentAction::kStop) return stop_attached();
    if (g_profiling.load()) {
        log_error("already sampling into %s: load with 'stop' first", g_writer.path().c_str());
        return JNI_ERR;
    }
    if (g_environment == nullptr) g_environment = new_environment(vm);
    jvmtiEnv* jvmti = g_environment;
    if (jvmti == nullptr || !configure(jvmti, text)) return JNI_ERR;
    if (!g_thread_events_enabled) {
        if (!enable_thread_events(jvmti, false)) {
            g_writer.abandon();
            return JNI_ERR;
        }
        g_thread_events_enabled = true;
    }
    JNIEnv* jni = nullptr;
    jthread current = nullptr;
    if (vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_6) != JNI_OK ||
        jvmti->GetCurrentThread(&current) != JVMTI_ERROR_NONE) {
        log_error("the attaching thread has no JNI environment");
        g_writer.abandon();
        return JNI_ERR;
    }
    start_sampling(jvmti, jni, current);
    jni->DeleteLocalRef(current);
    return g_profiling.load() ? JNI_OK : JNI_ERR;
}

}  // namespace

}  // namespace stackreq_perf

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void*) { return stackreq_perf::load(vm, options); }

// jcmd PID JVMTI.agent_load, or the attach API's loadAgentPath, with the usual options (and
// 'start', the default) to sample, or with 'stop' alone to stop and finish the samples file.
JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM* vm, char* options, void*) {
    return stackreq_perf::attach(vm, options);
}

JNIEXPORT void JNICALL Agent_OnUnload(JavaVM*) {
    // Normally VMDeath has finished the file; this covers a VM that ends without it.
    std::lock_guard<std::mutex> guard(stackreq_perf::g_lifecycle);
    if (stackreq_perf::g_profiling.exchange(false)) stackreq_perf::finish(nullptr);
}
