#include "hotspot/code_pages.h"

#include <atomic>
#include <thread>
#include <vector>

#include "check.h"

using namespace stackreq;

int main() {
    CodePages::reset_for_test();
    constexpr uintptr_t kPage = CodePages::kPageSize;
    CHECK(CodePages::add(0x7f0000001f00, 0x200));  // crosses into the next page
    CHECK(CodePages::contains(0x7f0000001f00, 16));
    CHECK(CodePages::contains(0x7f0000001000, 1));
    CHECK(CodePages::contains(0x7f00000020f0, 16));
    CHECK(CodePages::contains(0x7f0000002ff0, 16));        // the whole page is known
    CHECK(!CodePages::contains(0x7f0000002ffa, 16));       // ... the next one is not
    CHECK(!CodePages::contains(0x7f0000000ff8, 16));
    CHECK(!CodePages::contains(0x7f0000003000, 1));
    CHECK(!CodePages::contains(0, 16));
    CHECK(!CodePages::contains(~uintptr_t{0} - 4, 16));    // wraps around
    CHECK(CodePages::add(0x7f0000001f00, 0x200));          // again: already there

    // Concurrent adders, and a reader as a signal handler would be: every page is found
    // afterwards, and a reader that sees one of an adder's pages also sees the ones that adder
    // added before it (add publishes with release, contains reads with acquire).
    CodePages::reset_for_test();
    std::atomic<bool> adding{true};
    std::thread reader([&adding] {
        while (adding.load()) {
            uintptr_t seen = 5000;
            while (seen > 0 && !CodePages::contains(0x10000000 + (seen - 1) * kPage, 16)) seen--;
            for (uintptr_t i = 0; i < seen; i++) CHECK(CodePages::contains(0x10000000 + i * kPage + 8, 16));
        }
    });
    std::vector<std::thread> adders;
    for (uintptr_t t = 0; t < 4; t++) {
        adders.emplace_back([t] {
            for (uintptr_t i = 0; i < 5000; i++) CHECK(CodePages::add(0x10000000 + (t * 5000 + i) * kPage, 64));
        });
    }
    for (auto& adder : adders) adder.join();
    adding.store(false);
    reader.join();
    for (uintptr_t i = 0; i < 20000; i++) CHECK(CodePages::contains(0x10000000 + i * kPage + 8, 16));
    CHECK(!CodePages::contains(0x10000000 + 20000 * kPage, 1));
    return 0;
}
