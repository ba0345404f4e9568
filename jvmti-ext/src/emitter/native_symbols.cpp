#include "emitter/native_symbols.h"

#include <cxxabi.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace stackreq {

namespace {

std::mutex g_jvm_code_mutex;
struct JvmCode {
    uintptr_t end;
    std::string name;
};
std::map<uintptr_t, JvmCode>& jvm_code() {
    static std::map<uintptr_t, JvmCode> code;
    return code;
}

std::string base_name(const std::string& path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string demangle(const char* name) {
    int status = 0;
    char* demangled = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    if (status != 0 || demangled == nullptr) return name;
    std::string result(demangled);
    std::free(demangled);
    return result;
}

std::string hex_offset(const std::string& library, uintptr_t offset) {
    char text[32];
    std::snprintf(text, sizeof(text), "+0x%lx]", static_cast<unsigned long>(offset));
    return "[" + library + text;
}

}  // namespace

struct NativeSymbols::Object {
    struct Symbol {
        uintptr_t start;
        uintptr_t end;
        const char* name;  // in the mapped image's string table
    };

    std::string path;
    std::string library;
    uintptr_t base = 0;
    std::vector<std::pair<uintptr_t, uintptr_t>> segments;
    bool symbols_read = false;
    std::vector<Symbol> symbols;  // sorted by start
    void* mapping = nullptr;
    size_t mapping_size = 0;

    ~Object() {
        if (mapping != nullptr) munmap(mapping, mapping_size);
    }

    bool contains(uintptr_t pc) const {
        for (const auto& segment : segments) {
            if (pc >= segment.first && pc < segment.second) return true;
        }
        return false;
    }

    // The function symbols of .symtab and .dynsym in an ELF image of size bytes.
    void read_symbols(const uint8_t* image, size_t size) {
        if (size < sizeof(Elf64_Ehdr) || std::memcmp(image, ELFMAG, SELFMAG) != 0 || image[EI_CLASS] != ELFCLASS64) {
            return;
        }
        const auto* header = reinterpret_cast<const Elf64_Ehdr*>(image);
        if (header->e_shentsize != sizeof(Elf64_Shdr) || header->e_shoff > size ||
            header->e_shnum > (size - header->e_shoff) / sizeof(Elf64_Shdr)) {
            return;
        }
        const auto* sections = reinterpret_cast<const Elf64_Shdr*>(image + header->e_shoff);
        for (int pass = 0; pass < 2; pass++) {  // .symtab first: its names win over .dynsym's
            const uint32_t type = pass == 0 ? SHT_SYMTAB : SHT_DYNSYM;
            for (uint16_t i = 0; i < header->e_shnum; i++) {
                const Elf64_Shdr& table = sections[i];
                if (table.sh_type != type || table.sh_link >= header->e_shnum) continue;
                const Elf64_Shdr& strings = sections[table.sh_link];
                if (table.sh_offset > size || table.sh_size > size - table.sh_offset || strings.sh_offset > size ||
                    strings.sh_size > size - strings.sh_offset || strings.sh_size == 0) {
                    continue;
                }
                const auto* entries = reinterpret_cast<const Elf64_Sym*>(image + table.sh_offset);
                const char* names = reinterpret_cast<const char*>(image + strings.sh_offset);
                if (names[strings.sh_size - 1] != '\0') continue;
                for (size_t j = 0; j < table.sh_size / sizeof(Elf64_Sym); j++) {
                    const Elf64_Sym& symbol = entries[j];
                    if (ELF64_ST_TYPE(symbol.st_info) != STT_FUNC || symbol.st_shndx == SHN_UNDEF ||
                        symbol.st_value == 0 || symbol.st_name >= strings.sh_size) {
                        continue;
                    }
                    const uintptr_t start = base + symbol.st_value;
                    symbols.push_back(Symbol{start, start + symbol.st_size, names + symbol.st_name});
                }
            }
        }
        // At one address the symbol with a size wins; among equals, the first table's.
        std::stable_sort(symbols.begin(), symbols.end(), [](const Symbol& a, const Symbol& b) {
            return a.start != b.start ? a.start < b.start : a.end - a.start > b.end - b.start;
        });
        symbols.erase(std::unique(symbols.begin(), symbols.end(),
                                  [](const Symbol& a, const Symbol& b) { return a.start == b.start; }),
                      symbols.end());
        // Functions written in assembly often have no size: they reach to the next function.
        for (size_t i = 0; i < symbols.size(); i++) {
            if (symbols[i].end == symbols[i].start) {
                symbols[i].end = i + 1 < symbols.size() ? symbols[i + 1].start : symbols[i].start + 1;
            }
        }
    }

    void load_symbols() {
        symbols_read = true;
        const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            // The vdso has no file; the kernel maps its whole ELF image, section headers included.
            if (library.find("vdso") != std::string::npos && !segments.empty()) {
                const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
                const uintptr_t end = (segments.back().second + page - 1) & ~(page - 1);
                read_symbols(reinterpret_cast<const uint8_t*>(base), end - base);
            }
            return;
        }
        struct stat status {};
        if (fstat(fd, &status) == 0 && status.st_size > 0) {
            void* mapped = mmap(nullptr, static_cast<size_t>(status.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
            if (mapped != MAP_FAILED) {
                mapping = mapped;
                mapping_size = static_cast<size_t>(status.st_size);
                read_symbols(static_cast<const uint8_t*>(mapping), mapping_size);
            }
        }
        close(fd);
    }

    const Symbol* symbol_at(uintptr_t pc) {
        if (!symbols_read) load_symbols();
        auto above = std::upper_bound(symbols.begin(), symbols.end(), pc,
                                      [](uintptr_t address, const Symbol& s) { return address < s.start; });
        if (above == symbols.begin()) return nullptr;
        const Symbol& candidate = *(above - 1);
        return pc < candidate.end ? &candidate : nullptr;
    }
};

NativeSymbols::NativeSymbols() = default;
NativeSymbols::~NativeSymbols() = default;

void NativeSymbols::add_jvm_code(const char* name, uintptr_t start, uintptr_t length) {
    if (name == nullptr || length == 0) return;
    std::lock_guard<std::mutex> guard(g_jvm_code_mutex);
    jvm_code()[start] = JvmCode{start + length, name};
}

void NativeSymbols::reload_objects() {
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) {
            auto* self = static_cast<NativeSymbols*>(data);
            std::string path = info->dlpi_name != nullptr ? info->dlpi_name : "";
            if (path.empty()) path = "/proc/self/exe";
            for (const auto& known : self->objects_) {
                if (known->base == info->dlpi_addr && known->path == path) return 0;
            }
            auto object = std::make_unique<Object>();
            object->path = path;
            object->base = info->dlpi_addr;
            object->library = base_name(path);
            if (path == "/proc/self/exe") {
                char target[4096];
                const ssize_t length = readlink(path.c_str(), target, sizeof(target) - 1);
                if (length > 0) object->library = base_name(std::string(target, static_cast<size_t>(length)));
            }
            for (int i = 0; i < info->dlpi_phnum; i++) {
                const ElfW(Phdr)& segment = info->dlpi_phdr[i];
                if (segment.p_type != PT_LOAD || (segment.p_flags & PF_X) == 0) continue;
                const uintptr_t start = info->dlpi_addr + segment.p_vaddr;
                object->segments.emplace_back(start, start + segment.p_memsz);
            }
            self->objects_.push_back(std::move(object));
            return 0;
        },
        this);
}

NativeSymbols::Object* NativeSymbols::object_at(uintptr_t pc) {
    for (auto it = objects_.rbegin(); it != objects_.rend(); ++it) {
        if ((*it)->contains(pc)) return it->get();
    }
    return nullptr;
}

NativeFrameName NativeSymbols::name(uintptr_t pc) {
    Object* object = object_at(pc);
    if (object == nullptr) {
        std::lock_guard<std::mutex> guard(g_jvm_code_mutex);
        auto above = jvm_code().upper_bound(pc);
        if (above != jvm_code().begin() && pc < std::prev(above)->second.end) {
            return NativeFrameName{"jvm-stubs", std::prev(above)->second.name};
        }
    }
    if (object == nullptr) {
        reload_objects();
        object = object_at(pc);
    }
    if (object == nullptr) return NativeFrameName{"unknown-code", hex_offset("unknown", pc)};
    const Object::Symbol* symbol = object->symbol_at(pc);
    if (symbol == nullptr) return NativeFrameName{object->library, hex_offset(object->library, pc - object->base)};
    return NativeFrameName{object->library, demangle(symbol->name)};
}

}  // namespace stackreq
