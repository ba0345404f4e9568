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
// of the call's own, as the caller may be a signal handler on any thread. In pieces far below a
// pipe's capacity, so a write never waits for a read.
bool read_through_pipe(uintptr_t address, void* out, size_t size) {
    constexpr size_t kPiece = 4096;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return false;
    bool copied = true;
    for (size_t done = 0; copied && done < size; done += kPiece) {
        const size_t piece = size - done < kPiece ? size - done : kPiece;
        copied = write(fds[1], reinterpret_cast<const void*>(address + done), piece) == static_cast<ssize_t>(piece) &&
                 read(fds[0], static_cast<char*>(out) + done, piece) == static_cast<ssize_t>(piece);
    }
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

size_t safe_read_each(const uintptr_t* addresses, size_t count, void* out, size_t size) {
    // Below IOV_MAX, the most one process_vm_readv takes; the iovecs are on the stack (8 KiB).
    constexpr size_t kBatch = 256;
    iovec local[kBatch], remote[kBatch];
    char* into = static_cast<char*>(out);
    size_t done = 0;
    while (done < count && !g_no_process_vm_readv.load(std::memory_order_relaxed)) {
        const size_t batch = count - done < kBatch ? count - done : kBatch;
        for (size_t i = 0; i < batch; i++) {
            local[i] = iovec{into + (done + i) * size, size};
            remote[i] = iovec{reinterpret_cast<void*>(addresses[done + i]), size};
        }
        const ssize_t read = process_vm_readv(getpid(), local, batch, remote, batch, 0);
        if (read < 0 && errno == ENOSYS) {
            g_no_process_vm_readv.store(true, std::memory_order_relaxed);
            break;
        }
        // The kernel stops at the first address it cannot read.
        const size_t whole = read < 0 ? 0 : static_cast<size_t>(read) / size;
        done += whole;
        if (whole < batch) return done;
    }
    for (; done < count; done++) {
        if (!safe_read(addresses[done], into + done * size, size)) break;
    }
    return done;
}

}  // namespace stackreq
