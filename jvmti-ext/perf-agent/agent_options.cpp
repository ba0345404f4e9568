#include "agent_options.h"

#include <cstring>

namespace stackreq_perf {

namespace {

constexpr uint64_t kDefaultIntervalNs = 1000000;

bool fail(std::string* error, const std::string& message) {
    *error = message;
    return false;
}

bool parse_events(const std::string& value, AgentOptions* out, std::string* error) {
    out->event_count = 0;
    size_t start = 0;
    while (true) {
        size_t plus = value.find('+', start);
        std::string name = value.substr(start, plus == std::string::npos ? std::string::npos : plus - start);
        if (name.empty()) return fail(error, "bad option 'event=" + value + "': empty event name");
        if (out->event_count == kMaxGroupEvents) {
            return fail(error, "bad option 'event=" + value + "': at most " + std::to_string(kMaxGroupEvents) +
                                   " events in one group");
        }
        EventSpec* spec = &out->events[out->event_count];
        if (!find_event(name.c_str(), spec)) {
            return fail(error, "bad option 'event=" + value + "': unknown event '" + name +
                                   "' (use perf list names, e.g. task-clock, cpu-clock, page-faults, "
                                   "context-switches, cycles, cache-misses, L1-dcache-load-misses)");
        }
        for (int i = 0; i < out->event_count; i++) {
            if (out->events[i].type == spec->type && out->events[i].config == spec->config) {
                return fail(error, "bad option 'event=" + value + "': event '" + name + "' appears twice");
            }
        }
        out->event_count++;
        if (plus == std::string::npos) return true;
        start = plus + 1;
    }
}

// Signals the JVM owns or that stop the process: a profiler must not take them over.
const char* reserved_signal(int signal) {
    switch (signal) {
        case SIGSEGV: return "SIGSEGV (the JVM's implicit null checks and safepoints)";
        case SIGBUS: return "SIGBUS (used by the JVM)";
        case SIGILL: return "SIGILL (used by the JVM)";
        case SIGFPE: return "SIGFPE (used by the JVM)";
        case SIGTRAP: return "SIGTRAP (used by the JVM)";
        case SIGUSR2: return "SIGUSR2 (the JVM's suspend/resume signal)";
        case SIGQUIT: return "SIGQUIT (the JVM's thread dump)";
        case SIGHUP:
        case SIGINT:
        case SIGTERM: return "a shutdown signal";
        case SIGKILL:
        case SIGSTOP: return "a signal that cannot be caught";
        default:
            // glibc keeps the first real-time signals for thread cancellation and setxid.
            if (signal >= 32 && signal < SIGRTMIN) return "reserved by the C library's threads";
            return nullptr;
    }
}

}  // namespace

bool parse_positive(const std::string& text, uint64_t* out) {
    if (text.empty() || text.size() > 19) return false;
    uint64_t value = 0;
    for (char c : text) {
        if (c < '0' || c > '9') return false;
        value = value * 10 + uint64_t(c - '0');
    }
    if (value == 0) return false;
    *out = value;
    return true;
}

bool parse_duration_ns(const std::string& text, uint64_t* out) {
    size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') digits++;
    std::string unit = text.substr(digits);
    uint64_t scale;
    if (unit == "ns") scale = 1;
    else if (unit == "us") scale = 1000;
    else if (unit == "ms") scale = 1000000;
    else if (unit == "s") scale = 1000000000;
    else return false;
    uint64_t value;
    if (!parse_positive(text.substr(0, digits), &value)) return false;
    if (value > UINT64_MAX / scale / 4) return false;  // keeps value * scale far from overflow
    *out = value * scale;
    return true;
}

bool parse_agent_options(const char* text, AgentOptions* out, std::string* error) {
    *out = AgentOptions();
    bool seen_event = false, seen_interval = false, seen_period = false, seen_engine = false;
    bool seen_out = false, seen_signal = false, seen_log = false, seen_biased = false;
    bool seen_dry_run = false, seen_action = false, seen_threads = false;
    uint64_t interval_ns = 0, period = 0;
    std::string interval_option = "interval=", period_option = "period=", event_option = "event=";
    std::string all = text == nullptr ? "" : text;
    size_t start = 0;
    while (!all.empty()) {
        size_t comma = all.find(',', start);
        std::string option = all.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        size_t equals = option.find('=');
        std::string name = option.substr(0, equals);
        std::string value = equals == std::string::npos ? "" : option.substr(equals + 1);
        bool* seen = nullptr;
        if (option.empty()) {
            return fail(error, "bad options '" + all + "': empty option (two commas in a row?)");
        } else if (option == "cpu-timer") {
            seen = &seen_engine;
            out->engine = EngineKind::kCpuTimer;
        } else if (option == "biased") {
            seen = &seen_biased;
            out->biased = true;
        } else if (option == "dry-run") {
            seen = &seen_dry_run;
            out->dry_run = true;
        } else if (option == "start" || option == "stop") {
            seen = &seen_action;
            name = "start/stop";
            out->action = option == "start" ? AgentAction::kStart : AgentAction::kStop;
        } else if (equals == std::string::npos) {
            return fail(error, "bad option '" + option + "': expected name=value");
        } else if (name == "event") {
            seen = &seen_event;
            event_option = option;
            if (!parse_events(value, out, error)) return false;
        } else if (name == "interval") {
            seen = &seen_interval;
            interval_option = option;
            if (!parse_duration_ns(value, &interval_ns)) {
                return fail(error, "bad option '" + option +
                            "': expected a duration > 0 with a unit: ns, us, ms or s (e.g. 1ms)");
            }
        } else if (name == "period") {
            seen = &seen_period;
            period_option = option;
            if (!parse_positive(value, &period)) {
                return fail(error, "bad option '" + option + "': expected a count > 0 (e.g. period=1000)");
            }
        } else if (name == "out") {
            seen = &seen_out;
            if (value.empty()) return fail(error, "bad option '" + option + "': expected a file path");
            out->out = value;
        } else if (name == "engine") {
            seen = &seen_engine;
            if (value == "perf") out->engine = EngineKind::kPerf;
            else if (value == "cpu-timer") out->engine = EngineKind::kCpuTimer;
            else return fail(error, "bad option '" + option + "': expected engine=perf or engine=cpu-timer");
        } else if (name == "signal") {
            seen = &seen_signal;
            uint64_t signal;
            if (!parse_positive(value, &signal) || signal > uint64_t(SIGRTMAX)) {
                return fail(error, "bad option '" + option + "': expected a signal number 1.." +
                            std::to_string(SIGRTMAX));
            }
            if (const char* why = reserved_signal(int(signal))) {
                return fail(error, "bad option '" + option + "': signal " + value + " is " + why +
                                       "; use SIGPROF (" + std::to_string(SIGPROF) + ") or a real-time signal");
            }
            out->signal = int(signal);
        } else if (name == "threads") {
            seen = &seen_threads;
            if (value == "java") out->all_threads = false;
            else if (value == "all") out->all_threads = true;
            else return fail(error, "bad option '" + option + "': expected threads=java or threads=all");
        } else if (name == "log") {
            seen = &seen_log;
            if (value == "off") out->log_level = LogLevel::kOff;
            else if (value == "warn") out->log_level = LogLevel::kWarn;
            else if (value == "info") out->log_level = LogLevel::kInfo;
            else if (value == "debug") out->log_level = LogLevel::kDebug;
            else return fail(error, "bad option '" + option + "': expected log=off, warn, info or debug");
        } else {
            return fail(error, "unknown option '" + option +
                                   "' (known: event, interval, period, out, engine, cpu-timer, signal, threads, log, "
                                   "biased, dry-run, start, stop)");
        }
        if (*seen) return fail(error, "bad option '" + option + "': '" + name + "' given twice");
        *seen = true;
        if (comma == std::string::npos) break;
        start = comma + 1;
    }

    if (out->action == AgentAction::kStop && all != "stop") {
        return fail(error, "bad options '" + all + "': 'stop' takes no other option");
    }
    if (out->engine == EngineKind::kCpuTimer) {
        if (seen_event) {
            return fail(error, "bad option '" + event_option +
                        "': the cpu-timer engine samples thread CPU time; event= is for engine=perf");
        }
        if (seen_period) {
            return fail(error, "bad option '" + period_option + "': the cpu-timer engine takes interval=DURATION");
        }
        out->event_count = 0;
        out->period = seen_interval ? interval_ns : kDefaultIntervalNs;
        out->period_is_time = true;
        return true;
    }

    if (!seen_event) {
        find_event("task-clock", &out->events[0]);
        out->event_count = 1;
    }
    const EventSpec& leader = out->events[0];
    out->period_is_time = leader.unit == EventUnit::kNanos;
    if (seen_interval && !out->period_is_time) {
        return fail(error, "bad option '" + interval_option + "': the leader '"  + leader.name +
                               "' counts occurrences; use period=N (interval= is for task-clock and cpu-clock)");
    }
    if (seen_period && out->period_is_time) {
        return fail(error, "bad option '" + period_option + "': the leader '"  + leader.name +
                               "' is a time event; use interval=DURATION (e.g. interval=1ms)");
    }
    out->period = seen_interval ? interval_ns : seen_period ? period : leader.default_period;
    return true;
}

}  // namespace stackreq_perf
