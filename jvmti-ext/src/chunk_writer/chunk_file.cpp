#include "chunk_writer/chunk_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "chunk_writer/output_file.h"

namespace stackreq {

namespace {

bool write_all(int fd, const std::string& bytes) {
    size_t written = 0;
    while (written < bytes.size()) {
        ssize_t n = write(fd, bytes.data() + written, bytes.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        written += static_cast<size_t>(n);
    }
    return true;
}

}  // namespace

bool write_chunk_file(const char* path, int flags, const ChunkContent& content, std::string* error) {
    std::string bytes;
    if (!write_chunk(content, &bytes, error)) return false;
    int fd = open_output_file(path, flags);
    if (fd < 0) {
        *error = std::string("cannot open ") + path + ": " + std::strerror(errno);
        return false;
    }
    bool ok = write_all(fd, bytes);
    int saved_errno = errno;
    if (close(fd) != 0) ok = false;
    if (!ok) *error = std::string("cannot write ") + path + ": " + std::strerror(saved_errno);
    return ok;
}

bool read_first_chunk_scale(const char* path, TickScale* scale) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return false;
    char header[68];
    ssize_t n = pread(fd, header, sizeof(header), 0);
    close(fd);
    return n == static_cast<ssize_t>(sizeof(header)) && read_tick_scale(header, sizeof(header), scale);
}

}  // namespace stackreq
