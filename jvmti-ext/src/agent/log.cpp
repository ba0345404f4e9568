#include "agent/log.h"

#include <fcntl.h>

#include <cstdarg>
#include <cstdio>
#include <mutex>

#include "chunk_writer/output_file.h"

namespace stackreq {

namespace {
LogLevel g_level = LogLevel::kWarn;
FILE* g_file = nullptr;
std::mutex g_mutex;

void write_line(const char* tag, const char* format, va_list args) {
    std::lock_guard<std::mutex> guard(g_mutex);
    FILE* out = g_file != nullptr ? g_file : stderr;
    std::fprintf(out, "[stackreq]%s ", tag);
    std::vfprintf(out, format, args);
    std::fputc('\n', out);
    std::fflush(out);
}
}  // namespace

bool Log::configure(LogLevel level, const char* path) {
    g_level = level;
    if (path != nullptr && path[0] != '\0') {
        int fd = open_output_file(path, O_APPEND);
        FILE* file = fd < 0 ? nullptr : fdopen(fd, "a");
        if (file == nullptr) return false;
        g_file = file;
    }
    return true;
}

LogLevel Log::level() { return g_level; }

#define STACKREQ_LOG_BODY(threshold, tag)            \
    if (g_level < (threshold)) return;               \
    va_list args;                                    \
    va_start(args, format);                          \
    write_line(tag, format, args);                   \
    va_end(args)

void Log::warn(const char* format, ...) { STACKREQ_LOG_BODY(LogLevel::kWarn, "[warn]"); }
void Log::info(const char* format, ...) { STACKREQ_LOG_BODY(LogLevel::kInfo, "[info]"); }
void Log::debug(const char* format, ...) { STACKREQ_LOG_BODY(LogLevel::kDebug, "[debug]"); }
void Log::notice(const char* format, ...) { STACKREQ_LOG_BODY(LogLevel::kWarn, ""); }

void Log::close() {
    std::lock_guard<std::mutex> guard(g_mutex);
    if (g_file != nullptr) {
        std::fclose(g_file);
        g_file = nullptr;
    }
}

}  // namespace stackreq
