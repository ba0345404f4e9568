// Agent logging: one line per message, prefixed "[stackreq]". Never call from a signal handler.
#pragma once

namespace stackreq {

enum class LogLevel : int { kOff = 0, kWarn = 1, kInfo = 2, kDebug = 3 };

class Log {
public:
    // path == nullptr or "" means stderr. Returns false when the file cannot be opened.
    static bool configure(LogLevel level, const char* path);
    static LogLevel level();
    static void warn(const char* format, ...) __attribute__((format(printf, 1, 2)));
    static void info(const char* format, ...) __attribute__((format(printf, 1, 2)));
    static void debug(const char* format, ...) __attribute__((format(printf, 1, 2)));
    // The single startup line: printed at every level except off.
    static void notice(const char* format, ...) __attribute__((format(printf, 1, 2)));
    static void close();
};

}  // namespace stackreq
