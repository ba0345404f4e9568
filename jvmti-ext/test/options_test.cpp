#include <string>

#include "agent/options.h"
#include "check.h"
#include "native_unwind/arch.h"

using namespace stackreq;

static bool parses(const char* text, Options* out, std::string* error) {
    *out = Options();
    error->clear();
    return parse_options(text, out, error);
}

// x86_64 keeps every option as given; aarch64 refuses native=on and falls back from the signal
// frame search, one notice each (native_unwind/arch.h).
static void test_architecture_limits() {
    Options o;
    std::string error;
    std::vector<std::string> notices;
    CHECK(parses("", &o, &error) && limit_to_architecture(&o, &notices, &error));
    const size_t expected = (kHotSpotFramesKnown ? 0 : 1) + (kSignalFrameKnown ? 0 : 1);
    CHECK(notices.size() == expected);
    CHECK(o.walker == (kHotSpotFramesKnown ? Walker::kVmStructs : Walker::kAsyncGetCallTrace));
    CHECK(o.null_ucontext_from_signal == kSignalFrameKnown);
    if (!kHotSpotFramesKnown) {
        CHECK(notices[0] == std::string("walker=vmstructs is not available on ") + kArchitecture +
                                " yet; stacks are walked with AsyncGetCallTrace");
    }
    if (!kSignalFrameKnown) CHECK(notices.back().rfind("null-ucontext=signal is not available on ", 0) == 0);
    notices.clear();
    CHECK(parses("walker=asgct,null-ucontext=safepoint", &o, &error) && limit_to_architecture(&o, &notices, &error));
    CHECK(notices.empty() && o.walker == Walker::kAsyncGetCallTrace && !o.null_ucontext_from_signal);
    CHECK(parses("native=on", &o, &error));
    CHECK(limit_to_architecture(&o, &notices, &error) == kNativeUnwindKnown);
    CHECK(kNativeUnwindKnown ? error.empty()
                             : error == std::string("native=on is not available on ") + kArchitecture +
                                            " yet (the native unwinder knows x86_64's unwind rules only)");
}

int main() {
    test_architecture_limits();
    Options o;
    std::string error;
    CHECK(parses(nullptr, &o, &error) && o.ring_slots == 4096 && o.max_depth == 256 && o.extensions);
    CHECK(parses("", &o, &error));
    CHECK(parses("file=/tmp/x.jfr,ring=1000,depth=64,log=debug:/tmp/log.txt,extensions=off,stats=250ms", &o, &error));
    CHECK(o.file == "/tmp/x.jfr");
    CHECK(o.ring_slots == 1024);  // rounded up to a power of two
    CHECK(o.max_depth == 64);
    CHECK(o.log_level == LogLevel::kDebug && o.log_path == "/tmp/log.txt");
    CHECK(!o.extensions);
    CHECK(o.stats_period_ns == 250000000);
    CHECK(o.stack_cache == 8192);
    CHECK(parses("stack-cache=0", &o, &error) && o.stack_cache == 0);
    CHECK(parses("stack-cache=100000", &o, &error) && o.stack_cache == 100000);
    CHECK(!parses("stack-cache=-1", &o, &error) && error.find("'stack-cache=-1'") != std::string::npos);
    CHECK(!parses("stack-cache=2000000", &o, &error));
    CHECK(o.pending_limit == 200000 && o.continuous);
    CHECK(parses("pending=1000", &o, &error) && o.pending_limit == 1000);
    CHECK(!parses("pending=999", &o, &error) && error.find("'pending=999'") != std::string::npos);
    CHECK(parses("continuous=off", &o, &error) && !o.continuous);
    CHECK(parses("continuous=on", &o, &error) && o.continuous);
    CHECK(!parses("continuous=maybe", &o, &error) && error.find("'continuous=maybe'") != std::string::npos);
    CHECK(parses("", &o, &error) && !o.native_frames);
    CHECK(parses("native=on", &o, &error) && o.native_frames);
    CHECK(parses("native=off", &o, &error) && !o.native_frames);
    CHECK(!parses("native=yes", &o, &error) && error.find("'native=yes'") != std::string::npos);
    CHECK(parses("", &o, &error) && o.walker == Walker::kVmStructs);
    CHECK(parses("walker=vmstructs", &o, &error) && o.walker == Walker::kVmStructs);
    CHECK(parses("walker=asgct", &o, &error) && o.walker == Walker::kAsyncGetCallTrace);
    CHECK(!parses("walker=own", &o, &error) && error.find("'walker=own'") != std::string::npos);
    CHECK(parses("", &o, &error) && o.latency_bare_walk);
    CHECK(parses("latency=/tmp/l.json,latency-bare-walk=off", &o, &error) && !o.latency_bare_walk &&
          o.latency_path == "/tmp/l.json");
    CHECK(!parses("latency-bare-walk=no", &o, &error) && error.find("'latency-bare-walk=no'") != std::string::npos);
    CHECK(parses("", &o, &error) && o.null_ucontext_from_signal);
    CHECK(parses("null-ucontext=safepoint", &o, &error) && !o.null_ucontext_from_signal);
    CHECK(parses("null-ucontext=signal", &o, &error) && o.null_ucontext_from_signal);
    CHECK(!parses("null-ucontext=later", &o, &error) && error.find("'null-ucontext=later'") != std::string::npos);

    CHECK(!parses("bogus=1", &o, &error) && error.find("'bogus'") != std::string::npos);
    CHECK(!parses("ring=0", &o, &error) && error.find("'ring=0'") != std::string::npos);
    CHECK(!parses("ring=abc", &o, &error));
    CHECK(!parses("depth=99999", &o, &error));
    CHECK(!parses("log=loud", &o, &error));
    CHECK(!parses("log=info:", &o, &error));
    CHECK(!parses("file", &o, &error) && error.find("'file'") != std::string::npos);
    CHECK(!parses("extensions=maybe", &o, &error));
    CHECK(!parses("stats=5parsecs", &o, &error));

    int64_t ns = 0;
    CHECK(parse_duration_ns("1ms", &ns) && ns == 1000000);
    CHECK(parse_duration_ns("100us", &ns) && ns == 100000);
    CHECK(parse_duration_ns("2s", &ns) && ns == 2000000000);
    CHECK(parse_duration_ns("7", &ns) && ns == 7000000);
    CHECK(!parse_duration_ns("0ms", &ns));
    CHECK(!parse_duration_ns("ms", &ns));
    CHECK(!parse_duration_ns("123456789012345m", &ns));  // overflows int64 nanoseconds
    CHECK(!parse_duration_ns("9223372037s", &ns));
    std::printf("options_test: ok\n");
    return 0;
}
