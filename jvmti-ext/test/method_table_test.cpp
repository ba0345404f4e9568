// hotspot/method_ids.h on structures built as HotSpot lays them out, and
// walker=vmstructs, the emitter's Method* -> jmethodID table in the form JDK 26 and later give
// jmethodIDs (numbers the JVM maps itself): a Method* is looked up through its class's jmethodID
// array, built here as HotSpot lays it out (Method -> ConstMethod -> ConstantPool -> InstanceKlass
// -> the array, word 0 its length, word idnum + 1 the jmethodID), then remembered while the JVM
// still knows its jmethodID (a stand-in for JVMTI's answer).
#include "hotspot/method_table.h"

#include <cstring>

#include "check.h"

using namespace stackreq;

namespace {

// Offsets of this test's fake structures (each an array of words).
constexpr uint64_t kConstMethod = 8, kCodeSize = 34, kConstMethodSize = 56, kConstants = 8, kIdnum = 40,
                   kPoolHolder = 24, kMethodIds = 336, kMethods = 400;

struct FakeClass {
    uintptr_t klass[64] = {};
    uintptr_t pool[8] = {};
    uintptr_t ids[8] = {};
};

struct FakeMethod {
    uintptr_t words[4] = {};
    // A ConstMethod of 56 bytes (sizeof, as JDK 27's), then its bytecodes.
    alignas(8) unsigned char const_method[56 + 16] = {};
};

MethodTable::Layout layout() {
    MethodTable::Layout l;
    l.ids.const_method = kConstMethod;
    l.ids.constants = kConstants;
    l.ids.idnum = kIdnum;
    l.ids.pool_holder = kPoolHolder;
    l.ids.method_ids = kMethodIds;
    l.ids.methods = kMethods;
    l.ids.array_length = 0;
    l.ids.array_data = 8;
    l.code_size = kCodeSize;
    l.const_method_size = kConstMethodSize;
    return l;
}

void link(FakeClass& c, FakeMethod& m, uint16_t idnum) {
    c.klass[kMethodIds / 8] = reinterpret_cast<uintptr_t>(c.ids);
    c.pool[kPoolHolder / 8] = reinterpret_cast<uintptr_t>(c.klass);
    m.words[kConstMethod / 8] = reinterpret_cast<uintptr_t>(m.const_method);
    const uintptr_t pool = reinterpret_cast<uintptr_t>(c.pool);
    std::memcpy(m.const_method + kConstants, &pool, sizeof(pool));
    std::memcpy(m.const_method + kIdnum, &idnum, sizeof(idnum));
}

uintptr_t address(const FakeMethod& m) { return reinterpret_cast<uintptr_t>(m.words); }
jmethodID number(uintptr_t n) { return reinterpret_cast<jmethodID>(n); }

// The jmethodIDs the fake JVM still knows.
bool g_valid[16];
bool valid(jmethodID id) {
    const uintptr_t n = reinterpret_cast<uintptr_t>(id);
    return n < 16 && g_valid[n];
}

void finds_a_method_through_its_class() {
    FakeClass c;
    FakeMethod first, second;
    link(c, first, 0);
    link(c, second, 1);
    c.ids[0] = 2;
    c.ids[1] = 7;
    c.ids[2] = 8;
    jmethodID id = nullptr;
    CHECK(jmethod_id_of(layout().ids, address(first), &id) && id == number(7));
    CHECK(jmethod_id_of(layout().ids, address(second), &id) && id == number(8));
    // An idnum beyond the array, a method without its jmethodID yet, unmapped memory: none.
    link(c, second, 2);
    CHECK(!jmethod_id_of(layout().ids, address(second), &id));
    link(c, second, 1);
    c.ids[2] = 0;
    CHECK(!jmethod_id_of(layout().ids, address(second), &id));
    CHECK(!jmethod_id_of(layout().ids, 0x10, &id));
}

// The other way (hotspot/method_ids.h): a jmethodID's Method* among its class's methods (an
// Array<Method*>: an int length, the pointers from word 1), the class found from a mirror the way
// a JNI local reference leads to it.
void finds_a_jmethodIDs_method_in_its_class() {
    FakeClass c;
    FakeMethod first, second;
    link(c, first, 0);
    link(c, second, 1);
    c.ids[0] = 2;
    c.ids[1] = 7;
    c.ids[2] = 8;
    uintptr_t methods[3] = {2, address(first), address(second)};
    c.klass[kMethods / 8] = reinterpret_cast<uintptr_t>(methods);
    uintptr_t method = 0;
    const uintptr_t klass = reinterpret_cast<uintptr_t>(c.klass);
    CHECK(method_of(layout().ids, klass, number(8), &method) && method == address(second));
    CHECK(method_of(layout().ids, klass, number(7), &method) && method == address(first));
    CHECK(!method_of(layout().ids, klass, number(9), &method));
    uintptr_t mirror[4] = {0, 0, klass, 0};
    uintptr_t slot = reinterpret_cast<uintptr_t>(mirror);
    MethodIdLayout ids = layout().ids;
    ids.mirror_klass = 16;
    uintptr_t found = 0;
    CHECK(instance_klass_of(ids, reinterpret_cast<jclass>(&slot), &found) && found == klass);
}

void remembers_methods_while_the_jvm_knows_them() {
    FakeClass c;
    FakeMethod m;
    link(c, m, 0);
    c.ids[0] = 1;
    c.ids[1] = 5;
    const uint16_t code_size = 16;
    std::memcpy(m.const_method + kCodeSize, &code_size, sizeof(code_size));
    const uintptr_t bytecodes = reinterpret_cast<uintptr_t>(m.const_method) + kConstMethodSize;
    MethodTable table;
    table.use_number_form_for_test(layout(), valid);
    const jmethodID added[] = {number(5), number(6)};
    table.add(nullptr, added, 2);  // no class to find them in: looked up when first seen
    g_valid[5] = g_valid[6] = true;
    CHECK(table.id_form() == MethodTable::IdForm::kNumberInJvmTable);
    CHECK(table.holds(number(5), address(m)) && !table.holds(number(6), address(m)));
    jmethodID id = nullptr;
    int32_t bci = -9;
    bool known = false;
    CHECK(table.resolve(address(m), bytecodes + 3, &id, &bci, &known) && known && id == number(5) && bci == 3);
    CHECK(!table.resolve(address(m), bytecodes + 16, &id, &bci, &known) && known);
    // Its class unloaded (the JVM forgot the jmethodID), its words as they were: an unknown frame.
    g_valid[5] = false;
    CHECK(!table.holds(number(5), address(m)));
    CHECK(table.resolve(address(m), kEntryBcp, &id, &bci, &known) && known && id == nullptr);
    // The Method*'s memory reused by a method of another class: that method.
    c.ids[1] = 6;
    CHECK(table.holds(number(6), address(m)));
    CHECK(table.resolve(address(m), kEntryBcp, &id, &bci, &known) && id == number(6));
    // A jmethodID no class prepared gave: not taken.
    c.ids[1] = 9;
    g_valid[9] = true;
    g_valid[6] = false;
    CHECK(!table.holds(number(9), address(m)));
}

// A class of one method whose jmethodID is id, and a JNI local reference to it (a pointer to
// the slot that holds its mirror). Not copied: it points into itself.
struct OneMethodClass {
    FakeClass c;
    FakeMethod m;
    uintptr_t methods[2] = {};
    uintptr_t mirror[4] = {};
    uintptr_t slot = 0;

    explicit OneMethodClass(uintptr_t id) {
        link(c, m, 0);
        c.ids[0] = 1;
        c.ids[1] = id;
        methods[0] = 1;
        methods[1] = address(m);
        c.klass[kMethods / 8] = reinterpret_cast<uintptr_t>(methods);
        mirror[2] = reinterpret_cast<uintptr_t>(c.klass);
        slot = reinterpret_cast<uintptr_t>(mirror);
    }
    OneMethodClass(const OneMethodClass&) = delete;
    jclass reference() { return reinterpret_cast<jclass>(&slot); }
    // Unloaded: the JVM forgot the jmethodID and the class's array is gone.
    void unload() {
        g_valid[c.ids[1]] = false;
        c.ids[1] = 0;
    }
};

void use_number_form(MethodTable& table) {
    MethodTable::Layout with_mirror = layout();
    with_mirror.ids.mirror_klass = 16;
    table.use_number_form_for_test(with_mirror, valid);
}

// A class prepared after VMInit: its methods are found in it then, so a frame of it that a walk
// recorded just before the class was unloaded, seen by the emitter only after, is an unknown frame
// (the lookup through the class would find nothing by then).
void finds_a_prepared_classs_methods_before_it_is_unloaded() {
    OneMethodClass prepared(11);
    const jmethodID added[] = {number(11)};
    MethodTable table, unprepared;
    use_number_form(table);
    use_number_form(unprepared);
    table.add(prepared.reference(), added, 1);
    unprepared.add(nullptr, added, 1);
    prepared.unload();
    jmethodID id = number(3);
    int32_t bci = -9;
    bool known = false;
    CHECK(table.resolve(address(prepared.m), kEntryBcp, &id, &bci, &known) && known && id == nullptr && bci == 0);
    // Without the class at hand when prepared, the same frame is not known at all.
    CHECK(!unprepared.resolve(address(prepared.m), kEntryBcp, &id, &bci, &known) && !known);
    // A reference that leads to another class: none of its methods is taken.
    OneMethodClass other(12);
    MethodTable misled;
    use_number_form(misled);
    misled.add(other.reference(), added, 1);
    other.unload();
    CHECK(!misled.resolve(address(other.m), kEntryBcp, &id, &bci, &known) && !known);
}

}  // namespace

int main() {
    finds_a_method_through_its_class();
    finds_a_jmethodIDs_method_in_its_class();
    remembers_methods_while_the_jvm_knows_them();
    finds_a_prepared_classs_methods_before_it_is_unloaded();
    return 0;
}
