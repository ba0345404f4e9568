// JVMTI entry points of libstackreq.so: option parsing, capabilities, VM callbacks.
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "agent/agent_state.h"
#include "agent/extension_functions.h"
#include "agent/log.h"
#include "agent/running_threads.h"
#include "chunk_writer/output_file.h"
#include "emitter/emitter.h"
#include "emitter/jvmti_records.h"
#include "emitter/native_symbols.h"
#include "emitter/thread_identities.h"
#include "agent/virtual_threads.h"
#include "hotspot/code_heaps.h"
#include "hotspot/code_pages.h"
#include "hotspot/internal_threads.h"
#include "hotspot/stub_code.h"
#include "jdk_hooks/chunk_hook.h"
#include "jdk_hooks/class_rewriter.h"
#include "jdk_hooks/jfr_bridge.h"
#include "jdk_hooks/jfr_exclusion.h"
#include "jdk_hooks/settings_poll.h"
#include "native_unwind/arch.h"
#include "native_unwind/native_libraries.h"
#include "native_unwind/native_unwind.h"
#include "request/latency_histogram.h"
#include "request/thread_registry.h"
#include "stackreq.h"
#include "walk/asgct_walk.h"
#include "walk/physical_walk.h"

#ifndef STACKREQ_VERSION
#define STACKREQ_VERSION "0.1.0"
#endif

using namespace stackreq;

namespace {

// Whether the events jar could be put on the class path: without it the JFR integration is off
// (said once, at load) and nothing looks for its classes.
bool g_events_jar_added = false;

// Why the events jar at path cannot be used (missing, unreadable, not a jar), or "".
std::string events_jar_problem(const std::string& path) {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::strerror(errno);
    char magic[4] = {};
    ssize_t n = read(fd, magic, sizeof(magic));
    int saved = errno;
    close(fd);
    if (n < 0) return std::strerror(saved);
    if (n != 4 || std::memcmp(magic, "PK\x03\x04", 4) != 0) return "not a jar";
    return "";
}

// AsyncGetCallTrace needs a jmethodID for every method it may meet: create them as classes
// are prepared (and at VMInit for the classes loaded before).
// walker=vmstructs keeps each one's Method* (method_table.h).
void create_method_ids(jvmtiEnv* jvmti, jclass klass) {
    jint count = 0;
    jmethodID* methods = nullptr;
    if (jvmti->GetClassMethods(klass, &count, &methods) == JVMTI_ERROR_NONE) {
        if (agent().options.walker == Walker::kVmStructs) jvmti_records().method_table.add(klass, methods, count);
        jvmti->Deallocate(reinterpret_cast<unsigned char*>(methods));
    }
}

void JNICALL on_class_load(jvmtiEnv*, JNIEnv*, jthread, jclass) {}

void JNICALL on_compiled_method_load(jvmtiEnv* jvmti, jmethodID method, jint code_size, const void* code_addr, jint,
                                     const jvmtiAddrLocationMap*, const void* compile_info) {
    jboolean native = JNI_FALSE;
    if (jvmti->IsMethodNative(method, &native) != JVMTI_ERROR_NONE) native = JNI_FALSE;
    jvmti_records().compiled_methods.on_load(method, reinterpret_cast<uintptr_t>(code_addr), static_cast<uint32_t>(code_size),
                                     compile_info, native == JNI_TRUE);
    static std::atomic<bool> warned{false};
    if (!CodePages::add(reinterpret_cast<uintptr_t>(code_addr), static_cast<uintptr_t>(code_size)) &&
        !warned.exchange(true)) {
        Log::warn("code page table full: samples in later methods' prologues and epilogues are walked as before");
    }
}

void JNICALL on_compiled_method_unload(jvmtiEnv*, jmethodID, const void* code_addr) {
    jvmti_records().compiled_methods.on_unload(reinterpret_cast<uintptr_t>(code_addr));
}

void JNICALL on_dynamic_code_generated(jvmtiEnv*, const char* name, const void* address, jint length) {
    jvmti_records().compiled_methods.on_generated(name, reinterpret_cast<uintptr_t>(address), static_cast<uintptr_t>(length));
    // walker=vmstructs names the VM code a walk stopped at (slot_resolver.h).
    if (agent().options.native_frames || agent().options.walker == Walker::kVmStructs) {
        NativeSymbols::add_jvm_code(name, reinterpret_cast<uintptr_t>(address), static_cast<uintptr_t>(length));
    }
    PhysicalWalk::on_generated(name, reinterpret_cast<uintptr_t>(address), static_cast<uintptr_t>(length));
    static std::atomic<bool> warned{false};
    if (!StubCode::add(name, reinterpret_cast<uintptr_t>(address), static_cast<uintptr_t>(length)) &&
        !warned.exchange(true)) {
        Log::warn("stub table full: walks that fail in later stubs are not recovered");
    }
}

void JNICALL on_class_file_load(jvmtiEnv* jvmti, JNIEnv* jni, jclass, jobject, const char* name, jobject,
                                jint length, const unsigned char* data, jint* new_length, unsigned char** new_data) {
    ClassRewriter::on_class_file_load(jvmti, jni, name, length, data, new_length, new_data);
}

void JNICALL on_class_prepare(jvmtiEnv* jvmti, JNIEnv*, jthread, jclass klass) { create_method_ids(jvmti, klass); }

void register_thread(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread) {
    if (!ThreadRegistry::add_current(jni)) Log::warn("thread table full; requests from this thread are refused");
    const int32_t tid = ThreadRegistry::current_tid();
    jvmti_records().threads.on_thread_start(jvmti, jni, thread, tid);
    JfrExclusion::on_thread_start(jni, thread, tid);
}

void JNICALL on_thread_start(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread) { register_thread(jvmti, jni, thread); }

void JNICALL on_thread_end(jvmtiEnv*, JNIEnv* jni, jthread) {
    const int32_t tid = ThreadRegistry::end_current();
    jvmti_records().threads.on_thread_end(jni, tid);
}

void resolve_thread_methods(JNIEnv* jni) {
    AgentState& state = agent();
    jclass thread_class = jni->FindClass("java/lang/Thread");
    state.thread_class = static_cast<jclass>(jni->NewGlobalRef(thread_class));
    state.thread_is_virtual = jni->GetMethodID(thread_class, "isVirtual", "()Z");
    if (state.thread_is_virtual == nullptr) jni->ExceptionClear();  // JDK < 21
    jmethodID get_id = jni->GetMethodID(thread_class, "getId", "()J");
    if (get_id == nullptr) jni->ExceptionClear();
    jvmti_records().threads.set_thread_id_method(get_id);
}

void create_method_ids_of_loaded_classes(jvmtiEnv* jvmti, JNIEnv* jni) {
    jint class_count = 0;
    jclass* classes = nullptr;
    if (jvmti->GetLoadedClasses(&class_count, &classes) != JVMTI_ERROR_NONE) return;
    for (jint i = 0; i < class_count; i++) {
        create_method_ids(jvmti, classes[i]);
        jni->DeleteLocalRef(classes[i]);
    }
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(classes));
}

// VMInit, or the attach to a running JVM: from here on requests may be served.
void go_live(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread, bool attached) {
    AgentState& state = agent();
    resolve_thread_methods(jni);
    VirtualThreads::resolve_entry_method(jni);
    create_method_ids_of_loaded_classes(jvmti, jni);
    // Stubs generated before this point (most of them) are announced only on request; so is
    // the code compiled before an attach.
    jvmti->GenerateEvents(JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
    if (attached) jvmti->GenerateEvents(JVMTI_EVENT_COMPILED_METHOD_LOAD);
    Log::info("%u stub code ranges known", StubCode::size());
    std::string walk_error;
    if (!kHotSpotFramesKnown) {
        Log::warn("frame types are not available on %s yet: a stack's frames below its top physical frame keep "
                  "the type Java (undetermined)", kArchitecture);
    }
    // The code heaps and the frame anchors are read the same way on every architecture; without
    // kHotSpotFramesKnown only AsgctWalk uses them (to refuse walks from C code in Java state).
    if (!CodeHeaps::init(&walk_error)) {
        Log::warn("%s: only the frames of the top physical frame get a frame type", walk_error.c_str());
    } else if (!PhysicalWalk::init(jni, thread, &walk_error)) {
        Log::warn("%s: the frames of threads in the VM or in native code get no frame type", walk_error.c_str());
    }
    if (state.options.walker == Walker::kVmStructs) {
        // Without the code heaps or the frame anchors the VMStructs walk cannot size frames or start in
        // the VM: AsyncGetCallTrace walks instead.
        if (!walk_error.empty() || !jvmti_records().method_table.init(jvmti, jni, &walk_error)) {
            Log::warn("walker=vmstructs: %s; stacks are walked with AsyncGetCallTrace", walk_error.c_str());
            state.options.walker = Walker::kAsyncGetCallTrace;
        } else {
            Log::info("walker=vmstructs: Method, ConstMethod, code heap and frame anchor layouts found; jmethodIDs %s",
                      jvmti_records().method_table.id_form() == MethodTable::IdForm::kWordHoldsMethod
                          ? "hold their Method*"
                          : "are numbers, found through each method's class");
        }
    }
    std::string internal_threads_error;
    if (state.options.native_frames && !InternalThreads::init(jni, thread, &internal_threads_error)) {
        Log::warn("%s: the stacks of the JVM's own threads are read through the kernel",
                  internal_threads_error.c_str());
    }
    register_thread(jvmti, jni, thread);
    if (attached) adopt_running_threads(jvmti, jni, thread);
    if (attached) JfrExclusion::on_attach(jvmti, jni);
    if (!Emitter::start(jvmti, jni)) Log::warn("cannot start the emitter thread; no events will be written");
    state.live.store(true, std::memory_order_release);
    bool bridge = g_events_jar_added && start_jfr_bridge(jni);
    Log::info("live: JFR integration %s%s", bridge ? "on" : "off", state.file_mode ? ", file= recording on" : "");
}

void JNICALL on_vm_init(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread) { go_live(jvmti, jni, thread, false); }

void write_latency_report(const std::string& path) {
    int fd = open_output_file(path.c_str(), O_TRUNC);
    FILE* out = fd < 0 ? nullptr : fdopen(fd, "w");
    if (out == nullptr) {
        Log::warn("cannot write latency report %s", path.c_str());
        return;
    }
    std::fputs(latency_report_json().c_str(), out);
    if (std::fclose(out) != 0) Log::warn("cannot write latency report %s", path.c_str());
}

void JNICALL on_vm_death(jvmtiEnv*, JNIEnv* jni) {
    agent().live.store(false, std::memory_order_release);
    Emitter::shutdown(jni);
    if (agent().measure_latency) write_latency_report(agent().options.latency_path);
    Log::close();
}

std::string default_events_jar() {
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(&default_events_jar), &info) == 0 || info.dli_fname == nullptr) return "";
    std::string library(info.dli_fname);
    size_t slash = library.rfind('/');
    return (slash == std::string::npos ? std::string(".") : library.substr(0, slash)) + "/stackreq-jfr-events.jar";
}

std::string jdk_version(jvmtiEnv* jvmti) {
    char* value = nullptr;
    if (jvmti->GetSystemProperty("java.vm.version", &value) != JVMTI_ERROR_NONE || value == nullptr) return "unknown";
    std::string version(value);
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(value));
    return version;
}

// The JDKs stackreq knows: the oldest it serves, and the newest it was tested on. A newer one is
// served too: each part checks what it relies on at startup and says in one line what it does not
// find (docs/platforms.md).
constexpr int kOldestJdk = 11;
constexpr int kNewestKnownJdk = 27;

// The JDK's feature release from its JVMTI version: 9 and later number JVMTI as the JDK (11.0 on
// JDK 11), JDK 8 and older have JVMTI 1.x.
int jdk_feature(jvmtiEnv* jvmti) {
    jint version = 0;
    if (jvmti->GetVersionNumber(&version) != JVMTI_ERROR_NONE) return 0;
    const int major = (version & JVMTI_VERSION_MASK_MAJOR) >> JVMTI_VERSION_SHIFT_MAJOR;
    return major == 1 ? 8 : major;
}

// *serving: false when the JDK has the functions itself and stackreq stays idle, or when the JDK
// is one stackreq does not serve (it says so in one line and the application runs without it).
jint start_agent(JavaVM* vm, char* option_text, bool* serving) {
    *serving = false;
    AgentState& state = agent();
    std::string error;
    std::vector<std::string> architecture_notices;
    if (!parse_options(option_text, &state.options, &error) ||
        !limit_to_architecture(&state.options, &architecture_notices, &error)) {
        std::fprintf(stderr, "stackreq: %s\n", error.c_str());
        return JNI_ERR;
    }
    const Options& options = state.options;
    if (!Log::configure(options.log_level, options.log_path.c_str())) {
        std::fprintf(stderr, "stackreq: cannot open log file '%s'\n", options.log_path.c_str());
        return JNI_ERR;
    }
    state.vm = vm;
    if (vm->GetEnv(reinterpret_cast<void**>(&state.jvmti), JVMTI_VERSION_1_2) != JNI_OK) {
        Log::notice("stackreq %s: this JVM has no JVMTI 1.2: not loaded, the application runs without it",
                    STACKREQ_VERSION);
        state.jvmti = nullptr;
        return JNI_OK;
    }
    jvmtiEnv* jvmti = state.jvmti;
    const int feature = jdk_feature(jvmti);
    if (feature < kOldestJdk) {
        Log::notice("stackreq %s does not support JDK %d (VM %s; it needs JDK %d or later): not loaded, the "
                    "application runs without it",
                    STACKREQ_VERSION, feature, jdk_version(jvmti).c_str(), kOldestJdk);
        return JNI_OK;
    }
    stackreq_functions native_functions;
    ExtensionMode extension_mode = setup_extension_functions(jvmti, options.extensions, &native_functions);
    if (extension_mode == ExtensionMode::kVmNative) {
        Log::notice("stackreq %s on JDK %s, mode: VM-native "
                    "(the JDK provides RequestStackTrace; stackreq adds nothing)",
                    STACKREQ_VERSION, jdk_version(jvmti).c_str());
        return JNI_OK;
    }
    *serving = true;
    for (const std::string& notice : architecture_notices) Log::warn("%s", notice.c_str());
    Emitter::set_jfr_hooks({&ChunkHook::installed, &ChunkHook::request_new_chunk, &SettingsPoll::poll});
    state.file_mode = !options.file.empty();
    state.measure_latency = !options.latency_path.empty();
    if (state.measure_latency) LatencyClock::calibrate();
    // native=on: native PCs have room of their own in each slot, at most half of depth= in all.
    const uint32_t native_depth =
        options.native_frames ? std::min<uint32_t>(kMaxNativeFrames, options.max_depth / 2) : 0;
    if (!state.ring.init(options.ring_slots, options.max_depth, native_depth) ||
        sem_init(&state.emitter_wakeup, 0, 0) != 0) {
        std::fprintf(stderr, "stackreq: cannot allocate the request ring (ring=%u, depth=%u)\n", options.ring_slots,
                     options.max_depth);
        return JNI_ERR;
    }
    if (!AsgctWalk::init()) Log::warn("AsyncGetCallTrace not found in libjvm: unbiased requests will fail");
    // walker=vmstructs unwinds native code too: a leaf call from compiled code (vmstructs_walk.h).
    if (options.native_frames || options.walker == Walker::kVmStructs) {
        NativeLibraries::refresh();
        Log::info("native=on or walker=vmstructs: %zu executable segments of loaded objects can be unwound (%zu KiB "
                  "of unwind rows)",
                  NativeLibraries::size(), NativeLibraries::row_bytes() / 1024);
    }

    jvmtiCapabilities capabilities{};
    capabilities.can_get_line_numbers = 1;
    // Listening for CompiledMethodLoad makes HotSpot record debug information at every
    // instruction (DebugNonSafepoints), which a walk from an arbitrary PC needs for the right
    // line and inlined method; without it compiled hot lines are misattributed. The events also
    // tell which pages hold compiled code (code_pages.h).
    capabilities.can_generate_compiled_method_load_events = 1;
    if (jvmti->AddCapabilities(&capabilities) != JVMTI_ERROR_NONE) Log::warn("no line numbers: capability refused");
    // To put events into JFR's chunk files (chunk_hook.h); ChunkHook::install says when refused.
    jvmtiCapabilities retransform{};
    retransform.can_retransform_classes = 1;
    jvmti->AddCapabilities(&retransform);
    VirtualThreads::start(jvmti);
    const bool exclusions = JfrExclusion::request_capability(jvmti);
    if (!exclusions) Log::warn("NativeMethodBind refused: requests of threads JFR excludes are not refused");
    jvmtiEventCallbacks callbacks{};
    callbacks.VMInit = on_vm_init;
    callbacks.VMDeath = on_vm_death;
    callbacks.ThreadStart = on_thread_start;
    callbacks.ThreadEnd = on_thread_end;
    callbacks.ClassLoad = on_class_load;
    callbacks.ClassPrepare = on_class_prepare;
    callbacks.ClassFileLoadHook = on_class_file_load;
    callbacks.CompiledMethodLoad = on_compiled_method_load;
    callbacks.CompiledMethodUnload = on_compiled_method_unload;
    callbacks.DynamicCodeGenerated = on_dynamic_code_generated;
    callbacks.NativeMethodBind = JfrExclusion::on_native_method_bind;
    jvmti->SetEventCallbacks(&callbacks, sizeof(callbacks));
    if (exclusions) jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_NATIVE_METHOD_BIND, nullptr);
    for (jvmtiEvent event : {JVMTI_EVENT_VM_INIT, JVMTI_EVENT_VM_DEATH, JVMTI_EVENT_THREAD_START,
                             JVMTI_EVENT_THREAD_END,
                             JVMTI_EVENT_CLASS_LOAD, JVMTI_EVENT_CLASS_PREPARE, JVMTI_EVENT_COMPILED_METHOD_LOAD,
                             JVMTI_EVENT_COMPILED_METHOD_UNLOAD, JVMTI_EVENT_DYNAMIC_CODE_GENERATED}) {
        jvmti->SetEventNotificationMode(JVMTI_ENABLE, event, nullptr);
    }

    std::string jar = options.events_jar.empty() ? default_events_jar() : options.events_jar;
    const std::string jar_problem = events_jar_problem(jar);
    if (!jar_problem.empty()) {
        Log::warn("cannot use the events jar %s (%s): JFR integration off, requests are refused%s", jar.c_str(),
                  jar_problem.c_str(), state.file_mode ? " except into file=" : "");
    } else if (jvmti->AddToSystemClassLoaderSearch(jar.c_str()) != JVMTI_ERROR_NONE) {
        Log::warn("cannot add %s to the class path: JFR integration off", jar.c_str());
    } else {
        g_events_jar_added = true;
    }
    const char* mode = "stackreq (extension functions registered)";
    if (extension_mode == ExtensionMode::kNotRegistered) {
        mode = "stackreq (extension functions not registered: extensions=off)";
    } else if (extension_mode == ExtensionMode::kFailed) {
        mode = "stackreq (extension functions could not be registered; use stackreq_get_functions)";
    }
    Log::notice("stackreq %s on JDK %s, mode: %s%s%s", STACKREQ_VERSION, jdk_version(jvmti).c_str(), mode,
                state.file_mode ? ", file=" : "", state.file_mode ? options.file.c_str() : "");
    if (feature > kNewestKnownJdk) {
        Log::warn("JDK %d is newer than the JDKs stackreq was tested on (%d to %d): each part checks the JDK's "
                  "internals it relies on and says here what it does not find",
                  feature, kOldestJdk, kNewestKnownJdk);
    }
    return JNI_OK;
}

// The library stays loaded once loaded: a second -agentpath or attach of the same file reaches
// the same state.
std::atomic<bool> g_loaded{false};

bool first_load() {
    if (!g_loaded.exchange(true)) return true;
    Log::notice("stackreq %s is already loaded in this JVM; the new load and its options change nothing",
                STACKREQ_VERSION);
    return false;
}

jint attach_agent(JavaVM* vm, char* option_text) {
    bool serving = false;
    jint started = start_agent(vm, option_text, &serving);
    AgentState& state = agent();
    // Bad options are refused before anything changed: a corrected load may follow.
    if (started != JNI_OK && state.jvmti == nullptr) g_loaded.store(false);
    if (started != JNI_OK || !serving) return started;
    JNIEnv* jni = nullptr;
    jthread current = nullptr;
    if (vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_6) != JNI_OK ||
        state.jvmti->GetCurrentThread(&current) != JVMTI_ERROR_NONE) {
        std::fprintf(stderr, "stackreq: the attaching thread has no JNI environment\n");
        return JNI_ERR;
    }
    go_live(state.jvmti, jni, current, true);
    jni->DeleteLocalRef(current);
    return JNI_OK;
}

}  // namespace

extern "C" JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void*) {
    bool serving = false;
    return first_load() ? start_agent(vm, options, &serving) : JNI_OK;
}

// jcmd PID JVMTI.agent_load, or the attach API's loadAgentPath: the JVM runs already.
extern "C" JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM* vm, char* options, void*) {
    return first_load() ? attach_agent(vm, options) : JNI_OK;
}
