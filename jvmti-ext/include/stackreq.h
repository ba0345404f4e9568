/*
 * stackreq.h — the public contract of libstackreq.so.
 *
 * stackreq implements the API of the OpenJDK JEP draft "Unbiased Stack-Walk JFR event
 * trigger" (JDK-8380294) on JDKs that do not have it yet. A profiling agent calls
 * RequestStackTrace from a signal handler; a jdk.StackTraceRequest event carrying the stack
 * trace of that moment and the caller's user_data is written to the JFR recording.
 *
 * Three published forms of the API exist, and stackreq serves each unchanged (README,
 * "Compatibility"):
 *  - the JEP draft's text: RequestStackTrace(env, jthread*, ucontext, user_data), with
 *    EnableRequestStackTrace / DisableRequestStackTrace;
 *  - openjdk/jdk pull request 31059's current revision: no Enable/Disable (requests work while a
 *    running recording enables jdk.StackTraceRequest), the thread passed by value (jthread);
 *  - Datadog's java-profiler (option jvmtistacks): InitializeRequestStackTrace(env) once, then
 *    RequestStackTrace(env, (jthread)NULL, ucontext, correlation_id) from its signal handlers.
 * The gate is the event, as in the PR: a request returns NONE whenever a running recording enables
 * jdk.StackTraceRequest (or the agent option file= is set), whether or not the environment ever
 * called Enable or Initialize.
 *
 * Two ways to reach the functions:
 *  1. Portable, no link-time dependency on stackreq (recommended): look the ids
 *     STACKREQ_ID_REQUEST_STACK_TRACE etc. up in jvmtiEnv->GetExtensionFunctions. On a JDK
 *     that ships the feature they are the VM's own; on other JDKs libstackreq.so adds them to
 *     every environment's list when it is loaded first (-agentpath:libstackreq.so before the
 *     profiler's -agentpath, or, in a running JVM, loaded before the profiler with jcmd
 *     JVMTI.agent_load or the attach API's loadAgentPath). Extension functions take the jvmtiEnv
 *     as first argument, exactly like the prototypes below. stackreq_find_extension_functions
 *     (at the end) does the lookup.
 *  2. Direct: dlsym/link stackreq_get_functions() and call through the returned table. It
 *     returns the VM's own functions when the running JDK has them.
 *
 * Threading and signal rules:
 *  - RequestStackTrace(env, NULL, ucontext, data) is async-signal-safe: it never allocates,
 *    locks, or calls JNI/JVMTI. Call it from the handler of a signal delivered to the thread
 *    whose stack you want, passing that handler's own ucontext (a whole ucontext_t: it is
 *    copied), never one saved from another thread or an earlier signal. It leaves errno as it
 *    found it (with native=on its reads of the stack may fail, as system calls, with EFAULT),
 *    so the interrupted code's errno survives a handler that does not save it. It may also be
 *    called from normal code (e.g. a JNI method) with ucontext == NULL. Any number of threads may
 *    request at once, each for itself; the calling thread must be a Java thread whose start
 *    stackreq saw, or one that was running when libstackreq.so was loaded into a running JVM
 *    (else JVMTI_ERROR_UNATTACHED_THREAD). Such a thread's first request makes one gettid
 *    system call, to find the entry stackreq made for it at the attach.
 *  - Threads JVMTI does not show, with the agent option native=on: a request with
 *    thread == NULL and a ucontext from any other thread of the process (a GC worker, a JIT
 *    compiler thread, the VM thread, a native thread never attached to the VM) is accepted as
 *    from a Java thread, and its event has the native frames from the signal's PC (no Java
 *    frames), biased = false, and as eventThread that OS thread as JFR writes the JVM's own
 *    threads: its OS name (/proc/self/task/<tid>/comm, read by the emitter) and OS id, no Java
 *    name, Java id 0, not virtual. Such a request makes one gettid system call. A request with
 *    ucontext == NULL from a signal handler counts as one with the signal's ucontext (see
 *    ucontext below). With native=off, or with ucontext == NULL outside a signal handler, such a
 *    thread still gets JVMTI_ERROR_UNATTACHED_THREAD. A Java
 *    thread with no Java frame at the signal (a native thread attached to the VM, in C code)
 *    gets its native frames as its stack with native=on, failed = true without (as before).
 *  - RequestStackTrace with thread != NULL must be called from a normal (non-signal) context
 *    of a thread attached to the VM: it uses JNI/JVMTI to validate the thread.
 *  - Initialize/Enable/DisableRequestStackTrace must be called from a normal context (agent
 *    load, VMInit, or any live-phase thread); they are not signal-safe. Disable writes out the
 *    accepted requests on the calling thread, which must be attached to the VM for that (it
 *    takes the emitter's lock, and biased requests' stacks with JVMTI GetStackTrace).
 *  - stackreq_get_functions and stackreq_find_extension_functions: normal context only.
 *
 * Memory safety of the signal path. With a ucontext, a request reads:
 *  - the ucontext_t it is given (copied whole for each walk that starts from other registers);
 *  - stackreq's own preallocated memory: the request ring, the thread registry, the counters
 *    and the calling thread's initial-exec thread-local slot;
 *  - the interrupted thread's own stack, only between its lowest usable address (above
 *    HotSpot's guard zones, recorded when the thread started) and its top, every address
 *    checked against those bounds first: the word at SP and the ucontext above it (a signal
 *    that interrupted another handler: the Java context is the one the kernel saved there),
 *    the return address and saved frame pointer at SP or FP when a walk starts from the
 *    caller (see below), and, for the frame types, the physical frames AsyncGetCallTrace
 *    walked: an interpreted frame's saved frame pointer, return address and sender SP (the
 *    3 words from FP - 8), a compiled frame's return address and saved frame pointer (the 2
 *    words below its caller's SP), an entry frame's JavaCallWrapper pointer (FP - 48) and the
 *    frame anchor in that wrapper (which lives on the same stack), and the word below a frame
 *    anchor's SP when its PC is not recorded; the walk stops at the first frame that would
 *    leave the stack or not move up it;
 *  - the calling thread's own JavaThread, its frame anchor only (last Java SP, PC and FP, at
 *    offsets gHotSpotVMStructs gives), when the thread is not in Java code, and with
 *    walker=vmstructs, when the anchor is empty, its thread state (whether it is in native code);
 *  - HotSpot's code heaps, to find a compiled frame's size: the heap objects' bounds and
 *    segment-map fields, then the segment map, the block header and the code blob header
 *    (code bounds and frame size) for the PC, every address checked first against the heap's
 *    committed range just read (the code heaps never give committed memory back, so the reads
 *    cannot fault; a blob freed meanwhile can give a wrong size, which the emitter detects:
 *    the frames of a physical frame are typed only when the JIT's records for its PC are
 *    exactly them);
 *  - machine code at the PC, in two cases only: up to 16 bytes from the PC when the PC lies in
 *    a page that held a compiled method (learnt from JVMTI CompiledMethodLoad; the code cache
 *    never gives committed pages back, so the read cannot fault even after the method is
 *    unloaded), to see whether the method's frame is built yet or already torn down (with
 *    walker=vmstructs also the 24 bytes before the PC when they lie in such pages too, for C2's
 *    out-of-line return poll, which runs with the frame popped); and the
 *    bytes of the one instruction at the PC when the PC lies inside a leaf stub the JVM
 *    announced (JVMTI DynamicCodeGenerated: arraycopy, fill, checksum, crypto, math; not the
 *    interpreter, adapters or runtime stubs), for the stub recovery;
 *  - with the agent option native=on, for the native frames above the Java ones: more words of
 *    the same usable stack (return addresses and saved frame pointers, each an aligned word
 *    checked against the bounds first) and stackreq's own tables of the loaded objects' code
 *    ranges and unwind rows, built outside the handler; never the objects' code or data;
 *  - with native=on, on a thread JVMTI does not show: the value of HotSpot's pthread key for
 *    the current Thread (pthread_getspecific, which reads the thread's own key table) and that
 *    Thread's stack base and size (offsets from gHotSpotVMStructs); the native frames are then
 *    read inside that stack above the same guard margin as a Java thread's. On a thread HotSpot
 *    does not know (a native thread never attached) each word is read with process_vm_readv on
 *    the own process, which fails instead of faulting, from the signal's SP up;
 *  - with the agent option walker=vmstructs (the VMStructs walk, the default; walker=asgct uses
 *    AsyncGetCallTrace alone and reads only what is listed above):
 *    the same stack words, code heaps, frame anchors and code bytes as above, plus an
 *    interpreted frame's Method* and bytecode-pointer slots (the 9 words from FP - 64, checked
 *    against the stack bounds first), the interpreter's bytecode-pointer register in the
 *    ucontext, and for a compiled frame the word of its code blob header that names its Method*
 *    and, for a top PC in the code's first 128 bytes, the field of its verified entry (within the
 *    heap's committed range, as the rest of the header); the handler dereferences no
 *    Method*: the emitter turns a recorded Method* into a jmethodID through a table built
 *    outside the handler (on JDK 26 and later through the method's class, read with
 *    process_vm_readv) and reads the method's bytecode bounds with process_vm_readv. With the
 *    PC in a leaf stub it reads the word at SP, or the two words at the stub's FP when FP is at
 *    most 512 bytes above SP (within the stack bounds), for the stub's compiled caller; with the
 *    PC in native code and no last Java frame in the frame anchor (a leaf call from compiled
 *    code), the native frames' words as native=on reads them (the loaded objects' unwind rows
 *    are then built at the agent's start with this option too), up to the compiled caller (or,
 *    when that is a leaf stub, on to the stub's caller as above) or the thread's first frame.
 *    With the PC in the interpreter, in an i2c/c2i adapter or a method handle intrinsic's
 *    interpreter entry it reads the word at SP and the caller's last-SP slot (FP - 16), and the
 *    Method* register (rbx) in the ucontext, to see whether the interpreter is entering a method
 *    (its frame not built; entered from the interpreter, the bytecode-pointer register is SP + 8,
 *    or SP where a method handle linker entered it; entered from compiled code, it is taken as
 *    the caller's SP when it lies at most 4 KiB above SP, within the stack bounds); with the PC
 *    in a vtable, itable or inline-cache stub, or in a method handle intrinsic's compiled code (a
 *    blob without a frame, which the code-heap lookup above tells), the word at SP, the return
 *    address into the caller. With the PC in VM code of the
 *    code heaps that has a frame (runtime stubs, the exception blob) it reads the frame anchor as
 *    above, but takes the signal's PC when the anchor holds none: the word below the anchor's SP
 *    is the return address of the stub's call into the VM only once that call is made, and a
 *    stale one before. Where the VMStructs walk cannot start or finish, AsyncGetCallTrace walks the
 *    request as without the option, except with the PC in such VM code outside that window and
 *    outside the exception-dispatch code: the frame there is being built or torn down, which
 *    AsyncGetCallTrace does not see, and the request fails (failed = true); and a request whose
 *    VMStructs walk was cut short below some frames fails when AsyncGetCallTrace's stack has no more
 *    frames than those (it stopped where the VMStructs walk did, and would look whole). A thread out
 *    of Java code whose anchor holds no last Java frame, and whose compiled caller the VMStructs walk
 *    cannot find, fails too. A whole stack AsyncGetCallTrace walked fails in the emitter when
 *    its bottom frame is not the one the thread's last whole VMStructs walk ended with (a thread's
 *    first Java frame does not change; AsyncGetCallTrace can stop silently at a frame it cannot
 *    walk);
 *  - whatever the JVM's AsyncGetCallTrace reads (the Java frames on the stack, the code cache,
 *    the JVM's metadata). It does not check every read: with the PC at a deoptimization
 *    handler it reads relative to SP unchecked. So stackreq refuses to walk a context whose SP
 *    is outside the thread's usable stack (the event then has failed = true).
 * When the thread's stack bounds could not be read at its start, none of the stack or code
 * reads above are made and the walk is AsyncGetCallTrace's alone, with no SP check. A frame
 * that is not set up (a compiled method's prologue or epilogue, a stub's entry or return) is
 * walked from its caller, and a failed walk is retried from the stub's caller only when the PC
 * is inside a leaf stub, so a walk that fails elsewhere yields failed = true rather than a
 * stack missing its top frames. Without a ucontext the calling thread's walk starts from the
 * registers of the call itself (getcontext), with the same reads. For another thread the
 * request reads no stack: the emitter thread takes it later with JVMTI GetStackTrace. stackreq installs no
 * SIGSEGV handler of its own, so it can never swallow a fault that is not its own. The
 * reliability tests feed it mutated contexts (random, zero, off-by-some and misaligned
 * PC/SP/FP) from real signals on JDK 17 and 25 without a crash.
 *
 * Error codes (jvmtiError):
 *  JVMTI_ERROR_NONE               the request was accepted: exactly one event will be written
 *                                 (failed = true when no stack could be taken). A request
 *                                 suppressed by the event's "throttle" setting also returns
 *                                 NONE, as on the JDK where throttling acts at commit; it is
 *                                 counted as throttled and yields no event.
 *  JVMTI_ERROR_WRONG_PHASE        outside the live phase, or no JFR recording has been
 *                                 started in this VM yet (except with the agent option file=),
 *                                 or the thread (the caller, or the one named) is one JFR
 *                                 excludes from recording (its own threads, a RecordingStream's
 *                                 dispatch thread while the stream runs), as the JDK does; so is
 *                                 stackreq's own "stackreq emitter" thread, JFR's writer here.
 *  JVMTI_ERROR_NOT_AVAILABLE      no running recording enables jdk.StackTraceRequest (with the
 *                                 agent option file=: never for this reason), or this environment
 *                                 called DisableRequestStackTrace and not Enable since. A change
 *                                 of the recordings' settings (Recording.enable/disable, a
 *                                 recording starting or stopping, jcmd JFR.configure) holds for
 *                                 every request made after the call that made it returned.
 *  JVMTI_ERROR_INVALID_THREAD     thread is not a java.lang.Thread, or neither a JNI reference
 *                                 nor a readable pointer to one (see the thread argument below).
 *  JVMTI_ERROR_THREAD_NOT_ALIVE   thread was not started or has terminated; or thread == NULL
 *                                 and the calling thread's JVMTI ThreadEnd has run: stackreq's
 *                                 ThreadEnd runs before those of agents whose environment is
 *                                 younger, and their signals may still reach the thread then.
 *  JVMTI_ERROR_UNSUPPORTED_OPERATION  thread is a virtual thread (JDK 21+); the value 73 is
 *                                 STACKREQ_ERROR_UNSUPPORTED_OPERATION for JDK 17 headers.
 *  JVMTI_ERROR_UNATTACHED_THREAD  thread == NULL and the calling thread is not a Java thread
 *                                 known to stackreq (e.g. a GC worker, or a Java thread that
 *                                 started before the agent's VMInit other than main), unless
 *                                 native=on and ucontext != NULL (see the threading rules).
 *  JVMTI_ERROR_INVALID_ENVIRONMENT   env is NULL.
 *  JVMTI_ERROR_OUT_OF_MEMORY      the request ring was full; the request is dropped and
 *                                 counted in the statistics event as accepted and dropped
 *                                 (accepted = emitted + dropped + pending), no event.
 */
#ifndef STACKREQ_H
#define STACKREQ_H

#include <jvmti.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* JVMTI_ERROR_UNSUPPORTED_OPERATION (73) exists in jvmti.h from JDK 19 on; the same value here
 * lets agents built against JDK 17 headers name it. */
#define STACKREQ_ERROR_UNSUPPORTED_OPERATION ((jvmtiError)73)

#define STACKREQ_ID_REQUEST_STACK_TRACE "com.sun.hotspot.functions.RequestStackTrace"
#define STACKREQ_ID_ENABLE_REQUEST_STACK_TRACE "com.sun.hotspot.functions.EnableRequestStackTrace"
#define STACKREQ_ID_DISABLE_REQUEST_STACK_TRACE "com.sun.hotspot.functions.DisableRequestStackTrace"
#define STACKREQ_ID_INITIALIZE_REQUEST_STACK_TRACE "com.sun.hotspot.functions.InitializeRequestStackTrace"

/*
 * Requests the stack trace of a thread, to be written as a jdk.StackTraceRequest event.
 * In a mounted virtual thread (JDK 21+) the calling thread is the virtual thread: the event's
 * thread is it and its stack ends at its entry (Continuation.enterSpecial), without the
 * carrier's frames; a signal that lands while it mounts or unmounts yields failed = true, and
 * frames still frozen in the continuation (thawed lazily after a mount) are not walked: the
 * stack then holds the frames above them and is marked truncated.
 *
 * thread:    NULL for the calling thread; else the thread, in either form: a jthread by value
 *            (PR 31059) or a pointer to a variable holding a jthread (the JEP text; a pointer to
 *            NULL is the calling thread). Normal context only (see above). How the two are told
 *            apart: the argument is first asked of JNI's GetObjectRefType, which in HotSpot
 *            recognizes a reference by where it lies (a thread's local reference blocks, the
 *            global reference storage, a native frame's argument slots) and reads candidate
 *            storage blocks only with the VM's fault-tolerant SafeFetch, never through the
 *            argument; a pointer to a C variable is none of those. Only when it is not a
 *            reference is the word it points to read, with process_vm_readv on the own process
 *            (which fails instead of faulting), and that word must be NULL or a reference. An
 *            argument that is neither returns JVMTI_ERROR_INVALID_THREAD.
 * ucontext:  the ucontext_t* a SA_SIGINFO handler received, for the calling thread only.
 *            With it the stack is walked at once (AsyncGetCallTrace): biased = false.
 *            Without it, from a signal handler (Datadog's wall-clock engine requests so),
 *            stackreq finds the ucontext the kernel saved for the signal on the thread's stack:
 *            it unwinds the calling frames (its own, the handler's) with the loaded objects'
 *            unwind rows or frame pointers, every word read inside the stack's bounds, to the
 *            frame that returns to the signal trampoline (sa_restorer); the request is then one
 *            with that ucontext: biased = false (the agent option null-ucontext=safepoint turns
 *            this off, for the JDK's behaviour below). Elsewhere (biased = true) the calling thread's
 *            stack is walked at once from the call's own registers: from a JNI method or a JVMTI
 *            callback that is exactly its Java frames at the call, the native method on top.
 *            Where neither finds a Java frame (a handler whose frames cannot be unwound, which
 *            interrupted Java code) the stack is taken at the thread's next safepoint, as the
 *            JDK does (the request wakes stackreq's emitter thread, which takes it with JVMTI
 *            GetStackTrace; a thread that ends first gets failed = true). For another thread
 *            the emitter thread takes the stack shortly after, at that thread's next safepoint:
 *            biased = true.
 * user_data: copied into the event's userData field; use it to join the event with your own
 *            sample (a sequence number, a counter value).
 *
 * Frame types (the stack frames' "type", JFR's jdk.types.FrameType descriptions, as in JFR's
 * own jdk.ExecutionSample): a frame of a native method is "Native". Every physical frame of the
 * walked stack is typed from the code at its PC, from the top down: "Interpreted" in the
 * interpreter; in a compiled method whose debug record for the PC (for the top frame the one
 * AsyncGetCallTrace takes, below it the one at the return address) is exactly that physical
 * frame's frames, the inlined ones "Inlined" and the compiled method's own "JIT compiled"; a
 * native method's wrapper "Native". A thread in the VM or in native code is typed from its
 * last Java frame down, and an entry frame (a call from C into Java) is passed over. From the
 * first physical frame whose code the JVM has not described to stackreq yet (JVMTI posts
 * CompiledMethodLoad late), or whose frames are not what the JIT recorded there (a deoptimized
 * frame), or below the thread's first entry frame, the Java frames are "Java": their type was
 * not determined. So is every frame of a stack taken at a safepoint for another thread.
 * With the agent option native=on, an unbiased request's stack starts with the native frames
 * above the Java ones (C/C++ of any loaded object, a leaf stub the signal hit), each "Native",
 * its method named by the function (demangled) or "[library+0xoffset]", its class by the
 * library's file name ("jvm-stubs" for code the JVM generated).
 */
typedef jvmtiError (JNICALL *stackreq_RequestStackTrace)(jvmtiEnv* env, jthread* thread,
                                                         void* ucontext, jlong user_data);

/*
 * The same function as the PR 31059 revision declares it, the thread by value; both typedefs
 * call the same function (see thread above).
 */
typedef jvmtiError (JNICALL *stackreq_RequestStackTraceByValue)(jvmtiEnv* env, jthread thread,
                                                                void* ucontext, jlong user_data);

/*
 * Prepares what requests need and returns JVMTI_ERROR_NONE (JVMTI_ERROR_INVALID_ENVIRONMENT for a
 * NULL env); calling it again, from any environment, is harmless. Requests work without it: it
 * commits the request ring's memory ahead of the first request, as the first Enable does, so
 * that no request takes a page fault in it (Linux 5.14 or later; ring= slots of depth= frames,
 * about 25 MiB with the defaults). Datadog's java-profiler calls it once before requesting.
 */
typedef jvmtiError (JNICALL *stackreq_InitializeRequestStackTrace)(jvmtiEnv* env);

/*
 * The JEP text's switch, kept for agents written to it. Requests no longer need it: they work
 * whenever a running recording enables jdk.StackTraceRequest, as in PR 31059's revision. What it
 * does now: undoes this environment's DisableRequestStackTrace (if any), and commits the request
 * ring's memory as InitializeRequestStackTrace does. Returns NONE, also when called again.
 */
typedef jvmtiError (JNICALL *stackreq_EnableRequestStackTrace)(jvmtiEnv* env);

/*
 * Closes this environment's requests: until it calls EnableRequestStackTrace, its requests return
 * JVMTI_ERROR_NOT_AVAILABLE. Other environments are not affected (one agent's Disable never stops
 * another agent's requests). Before it returns, every request accepted so far, from any
 * environment, is written out (the emitter flushes). Returns JVMTI_ERROR_NOT_AVAILABLE when the
 * environment is disabled already, JVMTI_ERROR_OUT_OF_MEMORY when 64 environments are.
 */
typedef jvmtiError (JNICALL *stackreq_DisableRequestStackTrace)(jvmtiEnv* env);

typedef struct {
    stackreq_RequestStackTrace request_stack_trace;
    /* NULL when the VM's own list lacks them (PR 31059's revision has no Enable/Disable). */
    stackreq_EnableRequestStackTrace enable_request_stack_trace;
    stackreq_DisableRequestStackTrace disable_request_stack_trace;
    /* 1 when the functions are the VM's own (JDK-native feature), 0 when stackreq's. */
    jint vm_native;
} stackreq_functions;

/*
 * Fills *out with the functions to use for env: the VM's own when env's
 * GetExtensionFunctions lists STACKREQ_ID_REQUEST_STACK_TRACE as a VM function, else
 * stackreq's. Normal context only. Returns JVMTI_ERROR_NULL_POINTER when out is NULL,
 * JVMTI_ERROR_INVALID_ENVIRONMENT when env is NULL.
 */
JNIEXPORT jvmtiError JNICALL stackreq_get_functions(jvmtiEnv* env, stackreq_functions* out);

/* stackreq's own implementations (what the extension ids resolve to on JDKs without them). */
JNIEXPORT jvmtiError JNICALL stackreq_RequestStackTraceImpl(jvmtiEnv* env, jthread* thread,
                                                            void* ucontext, jlong user_data);
JNIEXPORT jvmtiError JNICALL stackreq_EnableRequestStackTraceImpl(jvmtiEnv* env);
JNIEXPORT jvmtiError JNICALL stackreq_DisableRequestStackTraceImpl(jvmtiEnv* env);
JNIEXPORT jvmtiError JNICALL stackreq_InitializeRequestStackTraceImpl(jvmtiEnv* env);

/*
 * The portable way (1 above) in one call, header-only so that it needs no link-time
 * dependency on libstackreq.so; compiles as C and C++.
 *
 * stackreq_find_request_functions looks every id above up in the list env's
 * GetExtensionFunctions returns and fills *out, each function NULL when its id is not listed.
 * Only RequestStackTrace is required: PR 31059's revision lists it alone, the JEP text adds
 * Enable/Disable, Datadog's form Initialize. Returns JVMTI_ERROR_NONE when RequestStackTrace is
 * listed (stackreq_describe_missing then names the optional ones that are not),
 * JVMTI_ERROR_NOT_AVAILABLE when it is not, or the error of GetExtensionFunctions itself (every
 * function is then NULL).
 *
 * Any phase, normal context only (GetExtensionFunctions allocates). stackreq's ids are listed
 * once libstackreq.so's Agent_OnLoad or Agent_OnAttach has run: from your own Agent_OnLoad when
 * -agentpath:libstackreq.so comes first on the command line, from your Agent_OnAttach when
 * libstackreq.so was loaded into the running JVM before your agent. Everything GetExtensionFunctions
 * allocated is freed here with env's Deallocate, as JVMTI requires of the caller: the array,
 * and in each entry id, short_description, params, each params[i].name, and errors.
 */
typedef struct {
    stackreq_RequestStackTrace request_stack_trace;
    stackreq_EnableRequestStackTrace enable_request_stack_trace;               /* optional */
    stackreq_DisableRequestStackTrace disable_request_stack_trace;             /* optional */
    stackreq_InitializeRequestStackTrace initialize_request_stack_trace;       /* optional */
} stackreq_request_functions;

static inline const struct jvmtiInterface_1_* stackreq_jvmti_table(jvmtiEnv* env) {
#ifdef __cplusplus
    return env->functions;
#else
    return *env;
#endif
}

static inline void stackreq_deallocate(jvmtiEnv* env, void* memory) {
    if (memory != NULL) stackreq_jvmti_table(env)->Deallocate(env, (unsigned char*)memory);
}

static inline jvmtiError stackreq_find_request_functions(jvmtiEnv* env, stackreq_request_functions* out) {
    jint count = 0;
    jvmtiExtensionFunctionInfo* list = NULL;
    jvmtiError error;
    jint i;
    jint p;
    memset(out, 0, sizeof(*out));
    error = stackreq_jvmti_table(env)->GetExtensionFunctions(env, &count, &list);
    if (error != JVMTI_ERROR_NONE) return error;
    for (i = 0; i < count; i++) {
        jvmtiExtensionFunctionInfo* info = &list[i];
        /* Extension functions are declared variadic; the ids promise these exact prototypes. */
        if (info->id != NULL) {
            if (strcmp(info->id, STACKREQ_ID_REQUEST_STACK_TRACE) == 0) {
                out->request_stack_trace = (stackreq_RequestStackTrace)info->func;
            } else if (strcmp(info->id, STACKREQ_ID_ENABLE_REQUEST_STACK_TRACE) == 0) {
                out->enable_request_stack_trace = (stackreq_EnableRequestStackTrace)info->func;
            } else if (strcmp(info->id, STACKREQ_ID_DISABLE_REQUEST_STACK_TRACE) == 0) {
                out->disable_request_stack_trace = (stackreq_DisableRequestStackTrace)info->func;
            } else if (strcmp(info->id, STACKREQ_ID_INITIALIZE_REQUEST_STACK_TRACE) == 0) {
                out->initialize_request_stack_trace = (stackreq_InitializeRequestStackTrace)info->func;
            }
        }
        for (p = 0; p < info->param_count; p++) stackreq_deallocate(env, info->params[p].name);
        stackreq_deallocate(env, info->params);
        stackreq_deallocate(env, info->errors);
        stackreq_deallocate(env, info->id);
        stackreq_deallocate(env, info->short_description);
    }
    stackreq_deallocate(env, list);
    return out->request_stack_trace != NULL ? JVMTI_ERROR_NONE : JVMTI_ERROR_NOT_AVAILABLE;
}

/*
 * Writes into text (size bytes, NUL-terminated, cut to fit) the names of the functions *found
 * lacks, comma-separated ("" when none), for a log line; returns text.
 */
static inline char* stackreq_describe_missing(const stackreq_request_functions* found, char* text, size_t size) {
    const char* names[4];
    const int missing[4] = {found->request_stack_trace == NULL, found->enable_request_stack_trace == NULL,
                            found->disable_request_stack_trace == NULL,
                            found->initialize_request_stack_trace == NULL};
    size_t used = 0;
    int i;
    names[0] = "RequestStackTrace";
    names[1] = "EnableRequestStackTrace";
    names[2] = "DisableRequestStackTrace";
    names[3] = "InitializeRequestStackTrace";
    if (size == 0) return text;
    text[0] = '\0';
    for (i = 0; i < 4; i++) {
        size_t length = strlen(names[i]);
        if (!missing[i]) continue;
        if (used > 0 && used + 2 < size) {
            memcpy(text + used, ", ", 2);
            used += 2;
        }
        if (used + length >= size) length = size - used - 1;
        memcpy(text + used, names[i], length);
        used += length;
        text[used] = '\0';
    }
    return text;
}

/*
 * The lookup of earlier releases, kept for their callers: sets *request, *enable and *disable as
 * stackreq_find_request_functions does and returns what it returns (NONE when RequestStackTrace
 * is listed, even without Enable/Disable: they are optional).
 */
static inline jvmtiError stackreq_find_extension_functions(jvmtiEnv* env, stackreq_RequestStackTrace* request,
                                                           stackreq_EnableRequestStackTrace* enable,
                                                           stackreq_DisableRequestStackTrace* disable) {
    stackreq_request_functions found;
    jvmtiError error = stackreq_find_request_functions(env, &found);
    *request = found.request_stack_trace;
    *enable = found.enable_request_stack_trace;
    *disable = found.disable_request_stack_trace;
    return error;
}

#ifdef __cplusplus
}
#endif

#endif /* STACKREQ_H */
