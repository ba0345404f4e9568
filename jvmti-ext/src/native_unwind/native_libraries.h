// The code of the loaded objects (libjvm, libc, JNI libraries, the vdso...) as the native
// unwinder sees it from a signal handler: each executable segment's address range and the
// object's call-frame rows (eh_frame.h). Everything is built in normal context: at agent load
// and then whenever the dynamic loader's counters of loaded and unloaded objects changed
// (refresh(), called by the emitter at each wake-up, i.e. within about 100 ms of a dlopen).
// Until then a new object's code is unknown to the unwinder, which stops there as it does at
// Java code. Published snapshots and row tables are never freed (a handler may be reading one):
// memory grows with the objects a process ever loads, not with time.
#pragma once

#include <cstddef>
#include <cstdint>

#include "native_unwind/eh_frame.h"

namespace stackreq {

struct CodeRange {
    uintptr_t start;  // an executable segment: [start, end)
    uintptr_t end;
    UnwindTable::View unwind;  // the object's rows
};

class NativeLibraries {
public:
    // Normal context. Reads the loaded objects when the loader's counters changed since the
    // last call and publishes a new snapshot; builds the rows of objects not seen before.
    // Returns true when a new snapshot was published.
    static bool refresh();
    // Async-signal-safe: the executable segment holding pc, or null (JIT code, stubs, unknown).
    static const CodeRange* find(uintptr_t pc);
    // Executable segments in the current snapshot (for logs and tests).
    static size_t size();
    // Bytes of unwind rows built so far (for logs).
    static size_t row_bytes();
};

}  // namespace stackreq
