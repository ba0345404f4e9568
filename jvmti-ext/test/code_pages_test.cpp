#include "code_pages.h"

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

    // Concurrent adders: every page is found afterwards.
    CodePages::reset_for_test();
    std::vector<std::thread> adders;
    for (uintptr_t t = 0; t < 4; t++) {
        adders.emplace_back([t] {
            for (uintptr_t i = 0; i < 5000; i++) CHECK(CodePages::add(0x10000000 + (t * 5000 + i) * kPage, 64));
        });
    }
    for (auto& adder : adders) adder.join();
    for (uintptr_t i = 0; i < 20000; i++) CHECK(CodePages::contains(0x10000000 + i * kPage + 8, 16));
    CHECK(!CodePages::contains(0x10000000 + 20000 * kPage, 1));
    return 0;
}
