// A read of memory that may have been unmapped meanwhile (another thread's structures, a class's
// metadata that may be unloaded, the stack of a thread whose bounds are unknown): through
// process_vm_readv on the own process, which fails instead of faulting (where it is not
// implemented, through a pipe the kernel copies into). Async-signal-safe (a
// system call, no lock, no allocation) but slow: the signal path uses it only where no bounds
// are known (native_unwind.h, StackBounds::through_kernel).
#pragma once

#include <cstddef>
#include <cstdint>

namespace stackreq {

// Copies size bytes at address, or returns false when they are not mapped.
bool safe_read(uintptr_t address, void* out, size_t size);
// Copies size bytes at each of count addresses to out + i * size, in as few system calls as the
// kernel takes; returns how many were copied whole, the first ones (a read that fails ends it).
size_t safe_read_each(const uintptr_t* addresses, size_t count, void* out, size_t size);

template <typename T>
bool read_at(uintptr_t address, T* out) {
    return safe_read(address, out, sizeof(T));
}

}  // namespace stackreq
