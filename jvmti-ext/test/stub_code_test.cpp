#include "stub_code.h"

#include <thread>
#include <vector>

#include "check.h"

using namespace stackreq;

int main() {
    StubCode::reset_for_test();
    CHECK(StubCode::add("jint_disjoint_arraycopy", 0x1000, 0x100));
    CHECK(StubCode::contains(0x1000) && StubCode::contains(0x10ff));
    CHECK(!StubCode::contains(0xfff) && !StubCode::contains(0x1100));

    // The interpreter and the adapters are code blobs but no leaf stubs: never recovered from.
    CHECK(StubCode::add("Interpreter", 0x2000, 0x1000));
    CHECK(StubCode::add("I2C/C2I adapters", 0x4000, 0x100));
    CHECK(!StubCode::contains(0x2800) && !StubCode::contains(0x4010));
    CHECK(StubCode::add(nullptr, 0x5000, 0x10) && !StubCode::contains(0x5000));
    CHECK(StubCode::size() == 1);

    // Concurrent adders: every range is published, none is lost or torn.
    StubCode::reset_for_test();
    std::vector<std::thread> adders;
    for (int t = 0; t < 4; t++) {
        adders.emplace_back([t] {
            for (uintptr_t i = 0; i < 1000; i++) StubCode::add("vtable stub", 0x100000 * (t + 1) + i * 0x20, 0x10);
        });
    }
    for (auto& adder : adders) adder.join();
    CHECK(StubCode::size() == 4000);
    for (int t = 0; t < 4; t++) {
        for (uintptr_t i = 0; i < 1000; i++) {
            CHECK(StubCode::contains(0x100000 * (t + 1) + i * 0x20 + 0xf));
            CHECK(!StubCode::contains(0x100000 * (t + 1) + i * 0x20 + 0x10));
        }
    }

    // A full table refuses instead of overwriting.
    StubCode::reset_for_test();
    for (uint32_t i = 0; i < StubCode::kCapacity; i++) CHECK(StubCode::add("stub", 0x10000000 + i * 16, 8));
    CHECK(!StubCode::add("stub", 0x20000000, 8));
    CHECK(!StubCode::contains(0x20000000));
    std::printf("stub_code_test: ok\n");
    return 0;
}
