#include "chunk_writer/side_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "chunk_writer/output_file.h"

namespace stackreq {

namespace {

constexpr char kTemporaryName[] = ".stackreq-side.tmp";

bool write_all(int fd, const char* data, size_t size) {
    size_t written = 0;
    while (written < size) {
        ssize_t n = ::write(fd, data + written, size - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        written += static_cast<size_t>(n);
    }
    return true;
}

// Appends the whole file at path to fd.
bool copy_into(int fd, const std::string& path) {
    int in = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (in < 0) return false;
    char buffer[64 * 1024];
    bool ok = true;
    for (;;) {
        ssize_t n = read(in, buffer, sizeof(buffer));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) ok = false;
        if (n <= 0) break;
        if (!write_all(fd, buffer, static_cast<size_t>(n))) {
            ok = false;
            break;
        }
    }
    close(in);
    return ok;
}

std::string directory_of(const std::string& path) {
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

// Fills the temporary file of directory through fill(fd), then renames it to target.
template <typename Fill>
bool write_then_rename(const std::string& target, Fill fill, std::string* error) {
    std::string temporary = directory_of(target) + "/" + kTemporaryName;
    int fd = open_output_file(temporary.c_str(), O_TRUNC);
    if (fd < 0) {
        *error = "cannot open " + temporary + ": " + std::strerror(errno);
        return false;
    }
    bool ok = fill(fd);
    int saved = errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (ok && rename(temporary.c_str(), target.c_str()) != 0) {
        ok = false;
        saved = errno;
    }
    if (!ok) {
        unlink(temporary.c_str());
        *error = "cannot write " + target + ": " + std::strerror(saved);
    }
    return ok;
}

}  // namespace

std::string SideFiles::name_for(const std::string& chunk_path, uint64_t sequence) {
    std::string stem = chunk_path;
    for (const char* extension : {".jfr", ".part"}) {
        const size_t length = std::strlen(extension);
        if (stem.size() >= length && stem.compare(stem.size() - length, length, extension) == 0) {
            stem.resize(stem.size() - length);
            break;
        }
    }
    char suffix[48];
    snprintf(suffix, sizeof(suffix), "_stackreq_%06" PRIu64 ".jfr", sequence);
    return stem + suffix;
}

std::vector<std::string> SideFiles::paths() const {
    std::vector<std::string> out;
    for (const File& file : files_) out.push_back(file.path);
    return out;
}

bool SideFiles::write(const std::string& chunk_path, const std::string& bytes, std::string* error) {
    std::string path = name_for(chunk_path, ++sequence_);
    if (!write_then_rename(path, [&](int fd) { return write_all(fd, bytes.data(), bytes.size()); }, error)) {
        return false;
    }
    files_.push_back(File{path, 0});
    bytes_ += bytes.size();
    // A merge that fails leaves both files as they are (merge_last_two): the events are there.
    std::string merge_error;
    while (files_.size() >= 2 && files_[files_.size() - 1].level == files_[files_.size() - 2].level) {
        if (!merge_last_two(&merge_error)) break;
    }
    return true;
}

bool SideFiles::merge_last_two(std::string* error) {
    File& older = files_[files_.size() - 2];
    const File& newer = files_.back();
    bool ok = write_then_rename(
        older.path, [&](int fd) { return copy_into(fd, older.path) && copy_into(fd, newer.path); }, error);
    if (!ok) {
        // Both stay as they are, the newer one never merged again.
        files_.back().level = -1;
        return false;
    }
    unlink(newer.path.c_str());
    older.level++;
    files_.pop_back();
    return true;
}

void SideFiles::remove_all() {
    for (const File& file : files_) unlink(file.path.c_str());
    files_.clear();
    bytes_ = 0;
}

}  // namespace stackreq
