#include "hotspot/stub_code.h"

#include <thread>
#include <vector>

#include "check.h"

using namespace stackreq;

int main() {
    StubCode::reset_for_test();
    CHECK(StubCode::add("jint_disjoint_arraycopy", 0x1000, 0x100));
    CHECK(StubCode::contains(0x1000) && StubCode::contains(0x10ff));
    CHECK(!StubCode::contains(0xfff) && !StubCode::contains(0x1100));
    // The whole stub a PC is in, for aarch64's decoding of it.
    StubCode::Range range{};
    CHECK(StubCode::range_of(0x1080, &range) && range.start == 0x1000 && range.end == 0x1100);
    CHECK(!StubCode::range_of(0x1100, &range));

    // Code that is no leaf stub is never recovered from (names as HotSpot 17 and 25 report them).
    uintptr_t at = 0x10000;
    for (const char* name : {"Interpreter", "I2C/C2I adapters(0xbb)", "ExceptionBlob", "forward_exception",
                             "catch_exception", "call_stub", "_slow_arraycopy_Java", "C2 Runtime slow_arraycopy",
                             "C1 Runtime new_instance_blob", "Shared Runtime ic_miss_blob", "DeoptimizationBlob",
                             "vtable stub", "cont_thaw", "method_entry_barrier", "copy_oop_f", "copy_oop_uninit_b",
                             static_cast<const char*>(nullptr)}) {
        CHECK(StubCode::add(name, at, 0x100));
        CHECK(!StubCode::contains(at + 0x10));
        at += 0x1000;
    }
    for (const char* name : {"jbyte_disjoint_arraycopy", "checkcast_arraycopy_uninit", "arrayof_jint_fill",
                             "vectorizedMismatch", "updateBytesCRC32C", "sha256_implCompressMB", "libmSin", "dexp",
                             "g1_post_barrier_slow", "large_arrays_hashcode_byte", "forward_copy_longs",
                             "backward_copy_longs", "copy_byte_f", "copy_byte_b"}) {
        CHECK(StubCode::add(name, at, 0x100));
        CHECK(StubCode::contains(at + 0x10));
        at += 0x1000;
    }
    CHECK(StubCode::size() == 15);
    // Frameless code, by kind; none of it a leaf stub.
    CHECK(StubCode::frameless_at(0x10000 + 0x1000 + 0x10) == StubCode::Frameless::kAdapters);
    CHECK(StubCode::frameless_at(0x10000 + 11 * 0x1000 + 0x10) == StubCode::Frameless::kReturnAddressOnTop);
    CHECK(StubCode::frameless_at(0x10000 + 11 * 0x1000 + 0x100) == StubCode::Frameless::kNone);
    CHECK(StubCode::frameless_at(0x10000 + 0x10) == StubCode::Frameless::kNone);
    for (const char* name : {"itable stub", "InlineCacheBuffer", "I2C/C2I adapters", "_invokeBasic", "_linkToStatic"}) {
        CHECK(StubCode::add(name, at, 0x100));
        CHECK(!StubCode::contains(at + 0x10) && StubCode::frameless_at(at + 0x10) != StubCode::Frameless::kNone);
        at += 0x1000;
    }
    CHECK(StubCode::add("vtable chunks", at, 0x100));
    CHECK(StubCode::frameless_at(at + 0x10) == StubCode::Frameless::kNone);
    at += 0x1000;
    // The exception-dispatch code is known apart (no leaf stub among it).
    StubCode::add("_rethrow_Java", 0x90000, 0x80);
    StubCode::add("C1 Runtime handle_exception_from_callee", 0x91000, 0x80);
    CHECK(StubCode::in_exception_dispatch(0x90010) && StubCode::in_exception_dispatch(0x91010));
    CHECK(!StubCode::in_exception_dispatch(0x90080) && !StubCode::contains(0x90010));
    CHECK(!StubCode::in_exception_dispatch(0x1000));
    CHECK(StubCode::size() == 15);
    // The span of the ranges grew past the first one's; its range is still found, and a PC past
    // the last range is outside the span.
    CHECK(StubCode::contains(0x1000) && !StubCode::contains(at + 0x10));

    // Concurrent adders: every range is published, none is lost or torn.
    StubCode::reset_for_test();
    std::vector<std::thread> adders;
    for (int t = 0; t < 4; t++) {
        adders.emplace_back([t] {
            for (uintptr_t i = 0; i < 1000; i++) StubCode::add("jint_fill", 0x100000 * (t + 1) + i * 0x20, 0x10);
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
    for (uint32_t i = 0; i < StubCode::kCapacity; i++) CHECK(StubCode::add("jint_arraycopy", 0x10000000 + i * 16, 8));
    CHECK(!StubCode::add("jint_arraycopy", 0x20000000, 8));
    CHECK(!StubCode::contains(0x20000000));
    std::printf("stub_code_test: ok\n");
    return 0;
}
