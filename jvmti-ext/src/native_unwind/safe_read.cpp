#include "native_unwind/safe_read.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>

namespace stackreq {

namespace {

// Set once process_vm_readv answers ENOSYS (qemu's user-mode emulation does not implement it).
std::atomic<bool> g_no_process_vm_readv{false};

// The kernel copies from address into a pipe, failing with EFAULT where it is not mapped; a pipe
// of the call's own, as the caller may be a signal handler on any thread. size is a few words,
// far below a pipe's capacity.
bool read_through_pipe(uintptr_t address, void* out, size_t size) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return false;
    const bool copied = write(fds[1], reinterpret_cast<const void*>(address), size) == static_cast<ssize_t>(size) &&
                        read(fds[0], out, size) == static_cast<ssize_t>(size);
    close(fds[0]);
    close(fds[1]);
    return copied;
}

}  // namespace

bool safe_read(uintptr_t address, void* out, size_t size) {
    if (g_no_process_vm_readv.load(std::memory_order_relaxed)) return read_through_pipe(address, out, size);
    iovec local{out, size};
    iovec remote{reinterpret_cast<void*>(address), size};
    const ssize_t read = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    if (read == static_cast<ssize_t>(size)) return true;
    if (read < 0 && errno == ENOSYS) {
        g_no_process_vm_readv.store(true, std::memory_order_relaxed);
        return read_through_pipe(address, out, size);
    }
    return false;
}

}  // namespace stackreq
