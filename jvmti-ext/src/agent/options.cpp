#include "agent/options.h"

#include "native_unwind/arch.h"

#include <cerrno>
#include <cstdint>
#include <cstdlib>

namespace stackreq {

namespace {

bool parse_uint(const std::string& text, uint64_t min, uint64_t max, uint64_t* out) {
    if (text.empty() || text[0] < '0' || text[0] > '9') return false;
    errno = 0;
    char* end = nullptr;
    unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    if (errno != 0 || *end != '\0' || value < min || value > max) return false;
    *out = value;
    return true;
}

bool parse_log(const std::string& value, Options* out) {
    std::string level = value;
    size_t colon = value.find(':');
    if (colon != std::string::npos) {
        level = value.substr(0, colon);
        out->log_path = value.substr(colon + 1);
        if (out->log_path.empty()) return false;
    }
    if (level == "off") out->log_level = LogLevel::kOff;
    else if (level == "warn") out->log_level = LogLevel::kWarn;
    else if (level == "info") out->log_level = LogLevel::kInfo;
    else if (level == "debug") out->log_level = LogLevel::kDebug;
    else return false;
    return true;
}

uint32_t round_up_to_power_of_two(uint32_t n) {
    uint32_t p = 1;
    while (p < n) p <<= 1;
    return p;
}

}  // namespace

bool parse_duration_ns(const std::string& text, int64_t* out) {
    size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') digits++;
    if (digits == 0 || digits > 15) return false;
    int64_t value = std::strtoll(text.substr(0, digits).c_str(), nullptr, 10);
    std::string unit = text.substr(digits);
    int64_t scale;
    if (unit == "ns") scale = 1;
    else if (unit == "us") scale = 1000;
    else if (unit == "ms" || unit.empty()) scale = 1000000;
    else if (unit == "s") scale = 1000000000LL;
    else if (unit == "m") scale = 60000000000LL;
    else return false;
    if (value > INT64_MAX / scale) return false;
    *out = value * scale;
    return *out > 0;
}

bool parse_options(const char* text, Options* out, std::string* error) {
    if (text == nullptr) return true;
    std::string all(text);
    size_t start = 0;
    while (start <= all.size() && !all.empty()) {
        size_t comma = all.find(',', start);
        std::string item = all.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        start = comma == std::string::npos ? all.size() + 1 : comma + 1;
        if (item.empty()) continue;
        size_t eq = item.find('=');
        std::string name = item.substr(0, eq);
        std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
        bool ok = eq != std::string::npos && !value.empty();
        uint64_t number = 0;
        if (name == "file") {
            out->file = value;
        } else if (name == "ring") {
            ok = ok && parse_uint(value, 2, 1u << 24, &number);
            if (ok) out->ring_slots = round_up_to_power_of_two(static_cast<uint32_t>(number));
        } else if (name == "depth") {
            ok = ok && parse_uint(value, 1, 4096, &number);
            if (ok) out->max_depth = static_cast<uint32_t>(number);
        } else if (name == "stack-cache") {
            ok = ok && parse_uint(value, 0, 1u << 20, &number);
            if (ok) out->stack_cache = static_cast<uint32_t>(number);
        } else if (name == "pending") {
            ok = ok && parse_uint(value, 1000, 100000000, &number);
            if (ok) out->pending_limit = static_cast<uint32_t>(number);
        } else if (name == "log") {
            ok = ok && parse_log(value, out);
        } else if (name == "extensions") {
            ok = ok && (value == "on" || value == "off");
            if (ok) out->extensions = value == "on";
        } else if (name == "continuous") {
            ok = ok && (value == "on" || value == "off");
            if (ok) out->continuous = value == "on";
        } else if (name == "native") {
            ok = ok && (value == "on" || value == "off");
            if (ok) out->native_frames = value == "on";
        } else if (name == "walker") {
            ok = ok && (value == "asgct" || value == "vmstructs");
            if (ok) out->walker = value == "vmstructs" ? Walker::kVmStructs : Walker::kAsyncGetCallTrace;
        } else if (name == "events-jar") {
            out->events_jar = value;
        } else if (name == "latency") {
            out->latency_path = value;
        } else if (name == "latency-bare-walk") {
            ok = ok && (value == "on" || value == "off");
            if (ok) out->latency_bare_walk = value == "on";
        } else if (name == "null-ucontext") {
            ok = ok && (value == "signal" || value == "safepoint");
            if (ok) out->null_ucontext_from_signal = value == "signal";
        } else if (name == "stats") {
            ok = ok && parse_duration_ns(value, &out->stats_period_ns);
        } else {
            *error = "unknown option '" + name + "' (known: file, ring, depth, stack-cache, pending, continuous, "
                     "native, walker, log, extensions, events-jar, stats, latency, latency-bare-walk, null-ucontext)";
            return false;
        }
        if (!ok) {
            *error = "malformed option '" + item + "'";
            return false;
        }
    }
    return true;
}

bool limit_to_architecture(Options* options, std::vector<std::string>* notices, std::string* error) {
    const std::string architecture = kArchitecture;
    // Native frames that may be wrong are worse than none: the caller asked for them, so say no.
    if (options->native_frames && !kNativeUnwindKnown) {
        *error = "native=on is not available on " + architecture +
                 " yet (the native unwinder knows x86_64's unwind rules only)";
        return false;
    }
    if (options->walker == Walker::kVmStructs && !kHotSpotFramesKnown) {
        options->walker = Walker::kAsyncGetCallTrace;
        notices->push_back("walker=vmstructs is not available on " + architecture +
                           " yet; stacks are walked with AsyncGetCallTrace");
    }
    if (options->null_ucontext_from_signal && !kSignalFrameKnown) {
        options->null_ucontext_from_signal = false;
        notices->push_back("null-ucontext=signal is not available on " + architecture +
                           " yet; a request without a ucontext gets the stack at the call or at the thread's "
                           "next safepoint (null-ucontext=safepoint)");
    }
    return true;
}

}  // namespace stackreq
