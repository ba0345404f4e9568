// Logging of libstackreq-perf.so: one line per message on stderr, prefixed "stackreq-perf: ".
// Never call from a signal handler.
#pragma once

namespace stackreq_perf {

enum class LogLevel : int { kOff = 0, kWarn = 1, kInfo = 2, kDebug = 3 };

void set_log_level(LogLevel level);
LogLevel log_level();

void log_warn(const char* format, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char* format, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char* format, ...) __attribute__((format(printf, 1, 2)));
// Startup failures (bad option, missing event, missing extension): printed even with
// log=off, because the JVM is about to refuse to start or the agent is about to do nothing.
void log_error(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace stackreq_perf
