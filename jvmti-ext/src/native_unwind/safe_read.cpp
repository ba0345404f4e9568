#include "native_unwind/safe_read.h"

#include <sys/uio.h>
#include <unistd.h>

namespace stackreq {

bool safe_read(uintptr_t address, void* out, size_t size) {
    iovec local{out, size};
    iovec remote{reinterpret_cast<void*>(address), size};
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(size);
}

}  // namespace stackreq
