// A read of memory that may have been unmapped meanwhile (another thread's structures, a class's
// metadata that may be unloaded): through process_vm_readv, which fails instead of faulting.
// Normal context only: it is a system call.
#pragma once

#include <cstddef>
#include <cstdint>

namespace stackreq {

// Copies size bytes at address, or returns false when they are not mapped.
bool safe_read(uintptr_t address, void* out, size_t size);

template <typename T>
bool read_at(uintptr_t address, T* out) {
    return safe_read(address, out, sizeof(T));
}

}  // namespace stackreq
