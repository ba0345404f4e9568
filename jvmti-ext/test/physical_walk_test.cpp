// PhysicalWalk follows interpreted frames by their frame pointers through a stack built here
// with HotSpot's x86_64 interpreted frame layout, and stops where the stack says nothing more:
// a PC in no code it knows, a frame pointer outside the stack, a sender below its callee.
#include "walk/physical_walk.h"

#include <cstdint>

#include "check.h"

using namespace stackreq;

namespace {

constexpr uintptr_t kInterpreter = 0x7e0000000000;
constexpr uintptr_t kWord = sizeof(uintptr_t);

struct FakeStack {
    uintptr_t words[256] = {};

    uintptr_t address(int index) const { return reinterpret_cast<uintptr_t>(&words[index]); }
    // An interpreted frame whose frame pointer is at index: saved fp, return address, sender sp.
    void frame(int index, uintptr_t saved_fp, uintptr_t return_pc, uintptr_t sender_sp) {
        words[index] = saved_fp;
        words[index + 1] = return_pc;
        words[index - 1] = sender_sp;
    }
    ThreadSlotView thread() const {
        ThreadSlotView view{};
        view.stack_low = address(0);
        view.stack_high = address(256);
        return view;
    }
};

}  // namespace

int main() {
    PhysicalWalk::on_generated("Interpreter", kInterpreter, 0x10000);
    CHECK(PhysicalWalk::in_interpreter(kInterpreter + 0x10) && !PhysicalWalk::in_interpreter(kInterpreter + 0x10000));

    // Three interpreted frames at words 20, 60 and 100; the last returns to code nobody knows.
    FakeStack stack;
    stack.frame(20, stack.address(60), kInterpreter + 0x200, stack.address(40));
    stack.frame(60, stack.address(100), kInterpreter + 0x300, stack.address(80));
    stack.frame(100, stack.address(200), 0x1234, stack.address(120));
    uintptr_t pcs[8] = {};
    bool from_anchor = true;
    const Registers top{kInterpreter + 0x100, stack.address(10), stack.address(20)};
    CHECK(PhysicalWalk::walk(stack.thread(), top, pcs, 8, &from_anchor) == 3);
    CHECK(!from_anchor);
    CHECK(pcs[0] == kInterpreter + 0x100 && pcs[1] == kInterpreter + 0x200 && pcs[2] == kInterpreter + 0x300);

    // At most max frames.
    CHECK(PhysicalWalk::walk(stack.thread(), top, pcs, 2, &from_anchor) == 2);

    // A frame pointer that leaves the stack ends the walk at that frame, before reading it.
    stack.frame(60, stack.address(0) - 64 * kWord, kInterpreter + 0x300, stack.address(80));
    CHECK(PhysicalWalk::walk(stack.thread(), top, pcs, 8, &from_anchor) == 2);
    // So does a sender stack pointer below the frame (a stale or corrupt frame) where it must lie
    // above it (x86_64); on aarch64 an interpreted caller's lies there, and the walk goes on.
    stack.frame(60, stack.address(100), kInterpreter + 0x300, stack.address(50));
    CHECK(PhysicalWalk::walk(stack.thread(), top, pcs, 8, &from_anchor) == (kSenderSpAboveInterpretedFrame ? 2 : 3));

    // A top PC in no code it knows and no JVM to ask for the last Java frame: nothing.
    CHECK(PhysicalWalk::walk(stack.thread(), Registers{0x1234, stack.address(10), stack.address(20)}, pcs, 8,
                             &from_anchor) == 0);
    // No stack bounds for the thread: nothing.
    CHECK(PhysicalWalk::walk(ThreadSlotView{}, top, pcs, 8, &from_anchor) == 0);
    PhysicalWalk::reset_for_test();
    CHECK(!PhysicalWalk::in_interpreter(kInterpreter + 0x10));
    return 0;
}
