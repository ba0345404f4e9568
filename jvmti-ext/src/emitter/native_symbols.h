// Names for the native PCs of native=on stacks, in the emitter: the function symbol of the
// loaded object that holds the PC (its .symtab, else .dynsym, read from the object's file, or
// from memory for the vdso), demangled; a JVM stub or blob by the name the JVM gave it in
// DynamicCodeGenerated; otherwise "[library+0xoffset]". Normal context only; not thread-safe
// except add_jvm_code().
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace stackreq {

struct NativeFrameName {
    // The object's file name without its directory; "jvm-stubs" for code the JVM generated,
    // "unknown-code" elsewhere. Not bracketed: JMC reads a class name starting with '[' as an array.
    std::string library;
    std::string symbol;   // demangled function name, or "[library+0xoffset]" when none holds the PC
};

class NativeSymbols {
public:
    NativeSymbols();
    ~NativeSymbols();
    // The name of the code at pc (for a return address, pass the address - 1).
    NativeFrameName name(uintptr_t pc);

    // Any thread (DynamicCodeGenerated): names code the JVM generated in [start, start + length).
    static void add_jvm_code(const char* name, uintptr_t start, uintptr_t length);

private:
    struct Object;
    Object* object_at(uintptr_t pc);
    void reload_objects();

    std::vector<std::unique_ptr<Object>> objects_;  // every object seen, newest last
};

}  // namespace stackreq
