#include "perf_log.h"

#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>

namespace stackreq_perf {

namespace {

std::atomic<int> g_level{static_cast<int>(LogLevel::kWarn)};

void emit(const char* format, va_list args) {
    // Formatted into one buffer and written with one write(): lines from the JVM's threads
    // do not interleave mid-line.
    char line[1024];
    int prefix = snprintf(line, sizeof(line), "stackreq-perf: ");
    int body = vsnprintf(line + prefix, sizeof(line) - prefix - 1, format, args);
    size_t length = prefix + (body < 0 ? 0 : body);
    if (length > sizeof(line) - 2) length = sizeof(line) - 2;
    line[length++] = '\n';
    ssize_t ignored = write(STDERR_FILENO, line, length);
    (void)ignored;
}

}  // namespace

void set_log_level(LogLevel level) { g_level.store(static_cast<int>(level)); }

LogLevel log_level() { return static_cast<LogLevel>(g_level.load()); }

#define STACKREQ_PERF_LOG_AT(level_value)                        \
    if (g_level.load() < static_cast<int>(level_value)) return; \
    va_list args;                                                \
    va_start(args, format);                                      \
    emit(format, args);                                          \
    va_end(args)

void log_warn(const char* format, ...) { STACKREQ_PERF_LOG_AT(LogLevel::kWarn); }
void log_info(const char* format, ...) { STACKREQ_PERF_LOG_AT(LogLevel::kInfo); }
void log_debug(const char* format, ...) { STACKREQ_PERF_LOG_AT(LogLevel::kDebug); }
void log_error(const char* format, ...) { STACKREQ_PERF_LOG_AT(LogLevel::kOff); }

#undef STACKREQ_PERF_LOG_AT

}  // namespace stackreq_perf
