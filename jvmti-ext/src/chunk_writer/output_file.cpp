#include "chunk_writer/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace stackreq {

int open_output_file(const char* path, int flags) {
    int fd = open(path, flags | O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) return -1;
    struct stat status;
    // An existing file keeps its mode through open(); take write away from others.
    if (fstat(fd, &status) != 0 || (S_ISREG(status.st_mode) && (status.st_mode & S_IWOTH) != 0 &&
                                    fchmod(fd, status.st_mode & ~(S_IWOTH | S_IWGRP)) != 0)) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

}  // namespace stackreq
