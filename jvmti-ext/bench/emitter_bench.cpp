// Native benchmark of stackreq's own code, without a JVM: the request path (stackreq_core's
// RequestStackTraceImpl, in a loop and from real perf task-clock signals) and the emitter
// (drain -> resolve -> dedup -> JFR chunk) through the real Emitter API. The JVM is replaced by
// fakes: AsyncGetCallTrace is exported by this executable (AsgctWalk::init finds it with
// dlsym) and copies a prepared stack; JavaVM/JNIEnv/jvmtiEnv are function tables that answer
// the calls the emitter makes (method names, line tables, thread info) from generated data.
// Cold-cache figures therefore price stackreq's resolver and chunk writer, not the JVM's own
// JVMTI work. Prints markdown. Usage: stackreq_emitter_bench [--quick|--full|--callgrind]
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "agent/agent_state.h"
#include "emitter/emitter.h"
#include "emitter/jvmti_records.h"
#include "emitter/thread_identities.h"
#include "request/counters.h"
#include "request/latency_histogram.h"
#include "request/thread_registry.h"
#include "stackreq.h"
#include "walk/asgct_walk.h"

using namespace stackreq;

namespace {

// ---- The fake AsyncGetCallTrace: copies g_stack (set before each request). ----

struct FakeCallTrace {
    JNIEnv* env_id;
    jint num_frames;
    CallFrame* frames;
};

constexpr int kMaxFrames = 256;
CallFrame g_stack[kMaxFrames];
int g_stack_depth = 10;

}  // namespace

extern "C" __attribute__((visibility("default"), noinline)) void AsyncGetCallTrace(FakeCallTrace* trace, jint depth,
                                                                                      void*) {
    int n = g_stack_depth < depth ? g_stack_depth : depth;
    for (int i = 0; i < n; i++) trace->frames[i] = g_stack[i];
    trace->num_frames = n;
}

namespace {

int64_t now_ns() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return int64_t(t.tv_sec) * 1000000000 + t.tv_nsec;
}

// ---- Fake JVM: method k is jmethodID k (k >= 1); class of method k is k / 16 + 1. ----

jvmtiError JNICALL fake_allocate(jvmtiEnv*, jlong size, unsigned char** out) {
    *out = static_cast<unsigned char*>(malloc(size_t(size)));
    return JVMTI_ERROR_NONE;
}
jvmtiError JNICALL fake_deallocate(jvmtiEnv*, unsigned char* memory) {
    free(memory);
    return JVMTI_ERROR_NONE;
}
char* copy_string(const std::string& s) {
    char* out = static_cast<char*>(malloc(s.size() + 1));
    memcpy(out, s.c_str(), s.size() + 1);
    return out;
}
uintptr_t method_number(jmethodID m) { return reinterpret_cast<uintptr_t>(m); }
jvmtiError JNICALL fake_method_name(jvmtiEnv*, jmethodID m, char** name, char** signature, char** generic) {
    if (name) *name = copy_string("method" + std::to_string(method_number(m)));
    if (signature) *signature = copy_string("(Ljava/lang/String;IJ)Ljava/util/List;");
    if (generic) *generic = nullptr;
    return JVMTI_ERROR_NONE;
}
jvmtiError JNICALL fake_declaring_class(jvmtiEnv*, jmethodID m, jclass* out) {
    *out = reinterpret_cast<jclass>(method_number(m) / 16 + 1);
    return JVMTI_ERROR_NONE;
}
jvmtiError JNICALL fake_class_signature(jvmtiEnv*, jclass k, char** signature, char** generic) {
    uintptr_t n = reinterpret_cast<uintptr_t>(k);
    if (signature) {
        *signature = copy_string("Lcom/example/package" + std::to_string(n % 97) + "/SomeClass" + std::to_string(n) +
                                 ";");
    }
    if (generic) *generic = nullptr;
    return JVMTI_ERROR_NONE;
}
jvmtiError JNICALL fake_modifiers(jvmtiEnv*, jmethodID, jint* out) {
    *out = 1;
    return JVMTI_ERROR_NONE;
}
jvmtiError JNICALL fake_line_table(jvmtiEnv*, jmethodID, jint* count, jvmtiLineNumberEntry** table) {
    constexpr int kLines = 8;
    *table = static_cast<jvmtiLineNumberEntry*>(malloc(sizeof(jvmtiLineNumberEntry) * kLines));
    for (int i = 0; i < kLines; i++) (*table)[i] = jvmtiLineNumberEntry{jlocation(i * 6), jint(100 + i)};
    *count = kLines;
    return JVMTI_ERROR_NONE;
}
jvmtiError JNICALL fake_thread_info(jvmtiEnv*, jthread, jvmtiThreadInfo* info) {
    memset(info, 0, sizeof(*info));
    info->name = copy_string("bench main");
    return JVMTI_ERROR_NONE;
}

jobject JNICALL fake_ref(JNIEnv*, jobject o) { return o; }
void JNICALL fake_delete(JNIEnv*, jobject) {}
jclass JNICALL fake_find_class(JNIEnv*, const char*) { return nullptr; }
jstring JNICALL fake_new_string(JNIEnv*, const char*) { return reinterpret_cast<jstring>(1); }
jboolean JNICALL fake_exception_check(JNIEnv*) { return JNI_FALSE; }
void JNICALL fake_exception_clear(JNIEnv*) {}

jvmtiInterface_1_ g_jvmti_functions;
_jvmtiEnv g_jvmti;
JNINativeInterface_ g_jni_functions;
JNIEnv_ g_jni;
JNIInvokeInterface_ g_vm_functions;
JavaVM_ g_vm;

jint JNICALL fake_get_env(JavaVM*, void** out, jint) {
    *out = &g_jni;
    return JNI_OK;
}

void install_fake_jvm() {
    // Zeroed tables: a call the emitter makes that no fake below answers crashes the bench at once.
    memset(&g_jvmti_functions, 0, sizeof(g_jvmti_functions));
    memset(&g_jni_functions, 0, sizeof(g_jni_functions));
    memset(&g_vm_functions, 0, sizeof(g_vm_functions));
    g_jvmti_functions.Allocate = fake_allocate;
    g_jvmti_functions.Deallocate = fake_deallocate;
    g_jvmti_functions.GetMethodName = fake_method_name;
    g_jvmti_functions.GetMethodDeclaringClass = fake_declaring_class;
    g_jvmti_functions.GetClassSignature = fake_class_signature;
    g_jvmti_functions.GetMethodModifiers = fake_modifiers;
    g_jvmti_functions.GetLineNumberTable = fake_line_table;
    g_jvmti_functions.GetThreadInfo = fake_thread_info;
    g_jni_functions.NewWeakGlobalRef = fake_ref;
    g_jni_functions.NewLocalRef = fake_ref;
    g_jni_functions.DeleteLocalRef = fake_delete;
    g_jni_functions.DeleteWeakGlobalRef = fake_delete;
    g_jni_functions.FindClass = fake_find_class;
    g_jni_functions.NewStringUTF = fake_new_string;
    g_jni_functions.ExceptionCheck = fake_exception_check;
    g_jni_functions.ExceptionClear = fake_exception_clear;
    g_vm_functions.GetEnv = fake_get_env;
    g_jvmti.functions = &g_jvmti_functions;
    g_jni.functions = &g_jni_functions;
    g_vm.functions = &g_vm_functions;
}

// The state VMInit and a running recording would leave behind, for the calling thread.
bool start_agent_state(uint32_t ring_slots) {
    install_fake_jvm();
    AgentState& state = agent();
    state.vm = &g_vm;
    state.jvmti = &g_jvmti;
    if (!state.ring.init(ring_slots, state.options.max_depth) || sem_init(&state.emitter_wakeup, 0, 0) != 0) {
        return false;
    }
    if (!AsgctWalk::init()) {
        fprintf(stderr, "emitter_bench: the fake AsyncGetCallTrace is not visible to dlsym (link with -rdynamic)\n");
        return false;
    }
    if (!ThreadRegistry::add_current(&g_jni)) return false;
    Emitter::start(&g_jvmti, &g_jni);  // no Thread class here: it creates the resolver and starts no thread
    jvmti_records().threads.on_thread_start(&g_jvmti, &g_jni, reinterpret_cast<jthread>(1), ThreadRegistry::current_tid());
    state.recording_seen.store(true);
    state.event_enabled.store(true);
    state.live.store(true);
    return true;
}

void set_stack(int depth, uintptr_t first_method, uintptr_t step) {
    g_stack_depth = depth;
    for (int i = 0; i < depth; i++) {
        g_stack[i] = CallFrame{jint(i * 3 % 40), reinterpret_cast<jmethodID>(first_method + i * step)};
    }
}

ucontext_t g_context;

void drain_ring_without_emitting() {
    RequestRing& ring = agent().ring;
    while (RequestSlot* slot = ring.peek()) ring.release(slot);
}

// ---- 1. The request path in a loop (normal context, caches warm). ----

struct LoopResult {
    double request_ns;   // RequestStackTraceImpl, fake walk included
    double fake_walk_ns; // the fake AsyncGetCallTrace alone
};

LoopResult request_loop(long requests, int depth) {
    set_stack(depth, 1, 1);
    jvmtiEnv* env = &g_jvmti;
    LoopResult r{};
    const long batch = 1024;
    int64_t spent = 0;
    for (long done = 0; done < requests; done += batch) {
        int64_t t0 = now_ns();
        for (long i = 0; i < batch; i++) stackreq_RequestStackTraceImpl(env, nullptr, &g_context, done + i);
        spent += now_ns() - t0;
        drain_ring_without_emitting();
    }
    r.request_ns = double(spent) / double(requests);
    CallFrame frames[kMaxFrames];
    FakeCallTrace trace{&g_jni, 0, frames};
    void (*volatile walk)(FakeCallTrace*, jint, void*) = AsyncGetCallTrace;
    int64_t t0 = now_ns();
    for (long i = 0; i < requests; i++) walk(&trace, 256, &g_context);
    r.fake_walk_ns = double(now_ns() - t0) / double(requests);
    return r;
}

struct Component {
    const char* name;
    double ns;
};

template <typename F>
double per_call(long n, F f) {
    int64_t t0 = now_ns();
    for (long i = 0; i < n; i++) f(i);
    return double(now_ns() - t0) / double(n);
}

std::vector<Component> loop_components(long n) {
    std::vector<Component> out;
    volatile int64_t sink = 0;
    out.push_back({"clock_gettime(CLOCK_MONOTONIC)", per_call(n, [&](long) { sink = sink + now_ns(); })});
    out.push_back({"gettid() system call (ThreadRegistry::current_tid)",
                   per_call(n, [&](long) { sink = sink + ThreadRegistry::current_tid(); })});
    ThreadSlotView view;
    int32_t current = 0;
    out.push_back({"ThreadRegistry::find_current (TLS, what a request uses)",
                   per_call(n, [&](long) { sink = sink + ThreadRegistry::find_current(&view, &current); })});
    out.push_back({"Counters::add (relaxed atomic add)", per_call(n, [&](long) { Counters::add(Counter::accepted); })});
    RequestRing& ring = agent().ring;
    out.push_back({"ring claim + publish (+ consumer release)", per_call(n, [&](long) {
                       RequestSlot* s = ring.claim();
                       s->event.start_ticks = 1;
                       ring.publish(s);
                       ring.release(ring.peek());
                   })});
    return out;
}

// ---- 2. The request path from real perf task-clock signals (JVM-free, same code). ----

LatencyHistogram g_caller_total, g_caller_plain, g_gettid_in_handler, g_clock_pair_in_handler;
std::atomic<long> g_signals{0};
int g_perf_fd = -1;

// Signals take turns: a request with the agent's latency= instrumentation on, one with it off
// (both timed by the caller), and the parts alone (so they do not warm up a request's path).
void on_profiling_signal(int, siginfo_t* info, void* ucontext) {
    if (info->si_fd != g_perf_fd) return;
    long n = g_signals.fetch_add(1, std::memory_order_relaxed);
    if (n % 3 != 2) {
        agent().measure_latency = n % 3 == 0;
        int64_t t0 = now_ns();
        stackreq_RequestStackTraceImpl(&g_jvmti, nullptr, ucontext, n);
        (n % 3 == 0 ? g_caller_total : g_caller_plain).record(now_ns() - t0);
    } else {
        int64_t a = now_ns(), b = now_ns();
        g_clock_pair_in_handler.record(b - a);
        syscall(SYS_gettid);
        g_gettid_in_handler.record(now_ns() - b);
    }
    ioctl(g_perf_fd, PERF_EVENT_IOC_REFRESH, 1);
}

bool signal_requests(double cpu_seconds, uint64_t period_ns) {
    perf_event_attr attr;
    memset(&attr, 0, sizeof(attr));
    attr.size = sizeof(attr);
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_TASK_CLOCK;
    attr.sample_period = period_ns;
    attr.disabled = 1;
    g_perf_fd = int(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
    if (g_perf_fd < 0) {
        attr.exclude_kernel = 1;
        g_perf_fd = int(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
    }
    if (g_perf_fd < 0) return false;
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_sigaction = on_profiling_signal;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGPROF, &action, nullptr);
    fcntl(g_perf_fd, F_SETFL, O_ASYNC);
    fcntl(g_perf_fd, F_SETSIG, SIGPROF);
    f_owner_ex owner{F_OWNER_TID, int(syscall(SYS_gettid))};
    fcntl(g_perf_fd, F_SETOWN_EX, &owner);
    set_stack(10, 1, 1);
    agent().event_enabled.store(true);  // a stopped recording closed the gate
    LatencyClock::calibrate();
    agent().measure_latency = true;
    ioctl(g_perf_fd, PERF_EVENT_IOC_REFRESH, 1);
    timespec start;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
    volatile uint64_t x = 1;
    for (;;) {
        for (int i = 0; i < 100000; i++) x = x * 6364136223846793005ull + 1;
        drain_ring_without_emitting();
        timespec now;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
        if (double(now.tv_sec - start.tv_sec) + double(now.tv_nsec - start.tv_nsec) / 1e9 >= cpu_seconds) break;
    }
    ioctl(g_perf_fd, PERF_EVENT_IOC_DISABLE, 0);
    close(g_perf_fd);
    g_perf_fd = -1;
    agent().measure_latency = false;
    drain_ring_without_emitting();
    return true;
}

// ---- 3. The emitter: drain + resolve + dedup, then the chunk. ----

enum class Stacks { kRepeated, kDistinctWarm, kDistinctCold };

struct EmitterResult {
    long events;
    double produce_ns;  // per request, fake walk included
    double drain_ns;    // per event: drain, resolve, dedup, store
    double chunk_ns;    // per event: collect + write_chunk + append to the file
    double bytes_per_event;
    long stacks;
};

constexpr int kEmitterDepth = 32;
constexpr uintptr_t kWarmPool = 2048;   // methods 1..2048, resolved by the warm-up
uintptr_t g_next_cold_method = 1u << 24;

void stack_for(Stacks kind, long i) {
    g_stack_depth = kEmitterDepth;
    for (int j = 0; j < kEmitterDepth; j++) {
        uintptr_t method = 1 + uintptr_t(j) * 61 % kWarmPool;  // a fixed base stack of warm methods
        if (kind == Stacks::kDistinctWarm && j == 0) method = 1 + uintptr_t(i) % kWarmPool;
        if (kind == Stacks::kDistinctWarm && j == 1) method = 1 + uintptr_t(i / long(kWarmPool)) % kWarmPool;
        if (kind == Stacks::kDistinctCold) method = g_next_cold_method++;
        g_stack[j] = CallFrame{jint(j * 3 % 40), reinterpret_cast<jmethodID>(method)};
    }
}

long file_size(const char* path) {
    struct stat s;
    return stat(path, &s) == 0 ? long(s.st_size) : -1;
}

EmitterResult emitter_run(Stacks kind, long events, int64_t recording_id, const std::string& path) {
    AgentState& state = agent();
    state.event_enabled.store(true);
    Emitter::recording_started(recording_id);
    FILE* empty = fopen(path.c_str(), "w");
    if (empty != nullptr) fclose(empty);
    const long batch = long(state.ring.capacity());
    int64_t produce = 0, drain = 0;
    for (long done = 0; done < events; done += batch) {
        long n = events - done < batch ? events - done : batch;
        int64_t t0 = now_ns();
        for (long i = 0; i < n; i++) {
            stack_for(kind, done + i);
            stackreq_RequestStackTraceImpl(&g_jvmti, nullptr, &g_context, done + i);
        }
        int64_t t1 = now_ns();
        Emitter::flush_from_any_thread();
        drain += now_ns() - t1;
        produce += t1 - t0;
    }
    std::string error;
    int64_t t0 = now_ns();
    if (!Emitter::recording_stopped(&g_jni, recording_id, path.c_str(), &error)) {
        fprintf(stderr, "emitter_bench: %s\n", error.c_str());
    }
    int64_t chunk = now_ns() - t0;
    EmitterResult r{};
    r.events = events;
    r.produce_ns = double(produce) / double(events);
    r.drain_ns = double(drain) / double(events);
    r.chunk_ns = double(chunk) / double(events);
    r.bytes_per_event = double(file_size(path.c_str())) / double(events);
    return r;
}

void warm_up_resolver(const std::string& path) {
    // Resolves every warm-pool method once (two events per method keep stacks small).
    AgentState& state = agent();
    state.event_enabled.store(true);
    Emitter::recording_started(999);
    for (uintptr_t m = 1; m <= kWarmPool; m += 1) {
        set_stack(1, m, 1);
        stackreq_RequestStackTraceImpl(&g_jvmti, nullptr, &g_context, 0);
        if (m % 1024 == 0) Emitter::flush_from_any_thread();
    }
    Emitter::flush_from_any_thread();
    std::string error;
    FILE* empty = fopen(path.c_str(), "w");
    if (empty != nullptr) fclose(empty);
    Emitter::recording_stopped(&g_jni, 999, path.c_str(), &error);
}

const char* fmt_ns(double ns, char* buffer, size_t size) {
    if (ns < 1000) snprintf(buffer, size, "%.0f ns", ns);
    else snprintf(buffer, size, "%.2f µs", ns / 1000);
    return buffer;
}

const char* fmt_rate(double per_second, char* buffer, size_t size) {
    if (per_second >= 1e6) snprintf(buffer, size, "%.2f M/s", per_second / 1e6);
    else snprintf(buffer, size, "%.0f k/s", per_second / 1e3);
    return buffer;
}

}  // namespace

int main(int argc, char** argv) {
    std::string mode = argc > 1 ? argv[1] : "--full";
    bool quick = mode == "--quick", callgrind = mode == "--callgrind";
    if (!quick && !callgrind && mode != "--full") {
        fprintf(stderr, "usage: stackreq_emitter_bench [--quick|--full|--callgrind]\n");
        return 2;
    }
    getcontext(&g_context);
    if (!start_agent_state(4096)) return 1;
    std::string chunk_path = "/tmp/stackreq-emitter-bench-" + std::to_string(getpid()) + ".jfr";
    char a[32], b[32], c[32];

    long loop_requests = callgrind ? 20000 : quick ? 500000 : 2000000;
    LoopResult loop = request_loop(loop_requests, 10);
    warm_up_resolver(chunk_path);
    long events = callgrind ? 20000 : quick ? 100000 : 400000;
    EmitterResult results[3];
    const char* names[3] = {"repeated stack (warm cache)", "all-distinct stacks, warm method cache",
                            "all-distinct stacks, cold method cache (32 new methods per event)"};
    Stacks kinds[3] = {Stacks::kRepeated, Stacks::kDistinctWarm, Stacks::kDistinctCold};
    for (int k = 0; k < 3; k++) results[k] = emitter_run(kinds[k], k == 2 ? events / 4 : events, k + 1, chunk_path);
    unlink(chunk_path.c_str());
    if (callgrind) return 0;

    std::vector<Component> components = loop_components(quick ? 200000 : 1000000);
    bool signals = signal_requests(quick ? 1.0 : 3.0, 200000);

    printf("## Emitter and request path, native benchmark (no JVM)\n\n");
    printf("`jvmti-ext/bench/emitter_bench.cpp` drives stackreq_core's real code with a fake AsyncGetCallTrace "
           "(copies a prepared stack) and fake JVMTI/JNI tables (generated names and line tables), on one core. "
           "Cold-cache rows therefore price stackreq's resolver and writer, not the JVM's JVMTI calls.\n\n");
    printf("| stacks (depth %d) | events | drain + resolve + dedup per event | chunk write per event "
           "| emitter events/s (one core) | JFR bytes per event |\n",
           kEmitterDepth);
    printf("|---|---|---|---|---|---|\n");
    for (int k = 0; k < 3; k++) {
        const EmitterResult& r = results[k];
        printf("| %s | %ld | %s | %s | %s | %.1f |\n", names[k], r.events, fmt_ns(r.drain_ns, a, sizeof a),
               fmt_ns(r.chunk_ns, b, sizeof b), fmt_rate(1e9 / (r.drain_ns + r.chunk_ns), c, sizeof c),
               r.bytes_per_event);
    }
    printf("\nRequest path in a loop (normal context, warm caches): RequestStackTraceImpl with a 10-frame fake walk "
           "%s per call, of which the fake walk %s: **%s without the walk**. Its parts, each alone in a loop:\n\n",
           fmt_ns(loop.request_ns, a, sizeof a), fmt_ns(loop.fake_walk_ns, b, sizeof b),
           fmt_ns(loop.request_ns - loop.fake_walk_ns, c, sizeof c));
    printf("| part | per call |\n|---|---|\n");
    for (const Component& component : components) {
        printf("| %s | %s |\n", component.name, fmt_ns(component.ns, a, sizeof a));
    }
    if (signals) {
        RequestLatency& latency = request_latency();
        auto quartet = [](const LatencyHistogram& h, char* out, size_t size) {
            char p50[16], p90[16], p99[16];
            snprintf(out, size, "%s / %s / %s", fmt_ns(double(h.quantile(0.5)), p50, sizeof p50),
                     fmt_ns(double(h.quantile(0.9)), p90, sizeof p90),
                     fmt_ns(double(h.quantile(0.99)), p99, sizeof p99));
            return out;
        };
        char q[5][64];
        printf("\nThe same code from perf task-clock signals (every 200 µs of CPU, %ld signals taking turns; "
               "p50 / p90 / p99):\n\n",
               g_signals.load());
        printf("| measured in the handler | p50 / p90 / p99 |\n|---|---|\n");
        printf("| whole RequestStackTraceImpl, timed by the caller, latency= off (fake 10-frame walk) | %s |\n",
               quartet(g_caller_plain, q[4], sizeof q[4]));
        printf("| whole RequestStackTraceImpl, timed by the caller, latency= on | %s |\n",
               quartet(g_caller_total, q[0], sizeof q[0]));
        printf("| capture-and-enqueue (agent's latency= histogram) | %s |\n",
               quartet(latency.capture_and_enqueue, q[1], sizeof q[1]));
        printf("| gettid() system call alone (other signals) | %s |\n",
               quartet(g_gettid_in_handler, q[2], sizeof q[2]));
        printf("| clock pair alone (other signals) | %s |\n", quartet(g_clock_pair_in_handler, q[3], sizeof q[3]));
    } else {
        printf("\n_perf_event_open task-clock unavailable: no signal measurements._\n");
    }
    printf("\n");
    return 0;
}
