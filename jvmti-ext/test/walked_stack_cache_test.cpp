#include "emitter/walked_stack_cache.h"

#include "check.h"

using namespace stackreq;

namespace {
jmethodID method(uintptr_t n) { return reinterpret_cast<jmethodID>(n * 8); }
}  // namespace

int main() {
    WalkedStackCache cache;
    cache.set_capacity(100000);
    CallFrame stack[3] = {{12, method(1)}, {40, method(2)}, {-3, method(3)}};
    CHECK(cache.find(stack, 3, false) == 0);
    cache.remember(stack, 3, false, 7);
    CHECK(cache.find(stack, 3, false) == 7);

    // Any difference in a method, a bci, the depth or truncation is another stack.
    CallFrame other_bci[3] = {{13, method(1)}, {40, method(2)}, {-3, method(3)}};
    CallFrame other_method[3] = {{12, method(1)}, {40, method(4)}, {-3, method(3)}};
    CHECK(cache.find(other_bci, 3, false) == 0);
    CHECK(cache.find(other_method, 3, false) == 0);
    // So is a difference in a frame's type (the same code run interpreted, then compiled).
    CallFrame other_type[3] = {{12, method(1), FrameType::kInterpreted}, {40, method(2)}, {-3, method(3)}};
    CHECK(cache.find(other_type, 3, false) == 0);
    CHECK(cache.find(stack, 2, false) == 0);
    CHECK(cache.find(stack, 3, true) == 0);

    // native=on: the native PCs above the Java frames are part of the stack.
    uintptr_t native[3] = {0x7f0000001234, 0x7f0000005678, 0x7f000000abcd};
    CHECK(cache.find(stack, 3, native, 3, false) == 0);  // not the Java-only stack
    cache.remember(stack, 3, native, 3, false, 8);
    CHECK(cache.find(stack, 3, native, 3, false) == 8 && cache.find(stack, 3, false) == 7);
    uintptr_t other_pc[3] = {0x7f0000001235, 0x7f0000005678, 0x7f000000abcd};
    CHECK(cache.find(stack, 3, other_pc, 3, false) == 0);
    CHECK(cache.find(stack, 3, native, 2, false) == 0);
    CHECK(cache.find(stack, 3, native, 3, true) == 0);
    CHECK(cache.find(other_bci, 3, native, 3, false) == 0);

    // Many stacks: each finds its own id.
    static CallFrame many[5000][2];
    for (int i = 0; i < 5000; i++) {
        many[i][0] = CallFrame{i, method(100 + i % 7)};
        many[i][1] = CallFrame{i / 3, method(200 + i)};
        cache.remember(many[i], 2, i % 2 == 0, 1000 + i);
    }
    for (int i = 0; i < 5000; i++) CHECK(cache.find(many[i], 2, i % 2 == 0) == static_cast<uint64_t>(1000 + i));
    CHECK(cache.find(stack, 3, false) == 7);

    // Bounded: a full cache starts over instead of growing; capacity 0 remembers nothing.
    WalkedStackCache small;
    small.set_capacity(3);
    for (int i = 0; i < 4; i++) small.remember(many[i], 2, false, 1 + i);
    CHECK(small.size() == 1 && small.find(many[3], 2, false) == 4 && small.find(many[0], 2, false) == 0);
    WalkedStackCache off;
    off.set_capacity(0);
    off.remember(stack, 3, false, 7);
    CHECK(off.size() == 0 && off.find(stack, 3, false) == 0);
    std::printf("walked_stack_cache_test: ok (%zu stacks)\n", cache.size());
    return 0;
}
