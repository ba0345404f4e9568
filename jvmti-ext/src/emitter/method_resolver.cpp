#include "emitter/method_resolver.h"

#include <algorithm>

namespace stackreq {

namespace {

// "Ljava/lang/String;" -> "java/lang/String"; array and primitive signatures stay as they are.
std::string class_name_from_signature(const char* signature) {
    std::string name(signature);
    if (name.size() >= 2 && name.front() == 'L' && name.back() == ';') return name.substr(1, name.size() - 2);
    return name;
}

class JvmtiString {
public:
    JvmtiString(jvmtiEnv* jvmti) : jvmti_(jvmti) {}
    ~JvmtiString() {
        if (value != nullptr) jvmti_->Deallocate(reinterpret_cast<unsigned char*>(value));
    }
    char* value = nullptr;

private:
    jvmtiEnv* jvmti_;
};

}  // namespace

MethodResolver::Cached& MethodResolver::lookup(jmethodID method) {
    auto found = cache_.find(method);
    if (found != cache_.end()) return found->second;

    MethodEntry entry;
    entry.id = entries_.size() + 1;
    Cached cached{entry.id, {}};
    JvmtiString name(jvmti_), descriptor(jvmti_), class_signature(jvmti_);
    jclass holder = nullptr;
    if (method != nullptr &&
        jvmti_->GetMethodName(method, &name.value, &descriptor.value, nullptr) == JVMTI_ERROR_NONE &&
        jvmti_->GetMethodDeclaringClass(method, &holder) == JVMTI_ERROR_NONE &&
        jvmti_->GetClassSignature(holder, &class_signature.value, nullptr) == JVMTI_ERROR_NONE) {
        entry.class_name = class_name_from_signature(class_signature.value);
        entry.method_name = name.value;
        entry.descriptor = descriptor.value;
        jint modifiers = 0;
        if (jvmti_->GetMethodModifiers(method, &modifiers) == JVMTI_ERROR_NONE) entry.modifiers = modifiers;
        if (jvmti_->GetClassModifiers(holder, &modifiers) == JVMTI_ERROR_NONE) entry.class_modifiers = modifiers;
        // Hidden classes (lambda forms, LambdaMetafactory) have a '.' in their internal name.
        entry.hidden = entry.class_name.find('.') != std::string::npos;
        jint count = 0;
        jvmtiLineNumberEntry* table = nullptr;
        if (jvmti_->GetLineNumberTable(method, &count, &table) == JVMTI_ERROR_NONE) {
            for (jint i = 0; i < count; i++) cached.lines.emplace_back(table[i].start_location, table[i].line_number);
            std::sort(cached.lines.begin(), cached.lines.end());
            jvmti_->Deallocate(reinterpret_cast<unsigned char*>(table));
        }
    }
    // An unloaded class leaves class and method names empty: the writer shows it as unknown.
    if (holder != nullptr && jni_ != nullptr) jni_->DeleteLocalRef(holder);
    entries_.push_back(entry);
    return cache_.emplace(method, std::move(cached)).first->second;
}

uint64_t MethodResolver::resolve(jmethodID method, int32_t bci, int32_t* line) {
    const Cached& cached = lookup(method);
    *line = line_in(cached, bci);
    return cached.id;
}

int32_t MethodResolver::line_in(const Cached& cached, int32_t bci) {
    if (bci < 0) return -1;
    int32_t line = -1;
    for (const auto& entry : cached.lines) {
        if (entry.first > bci) break;
        line = entry.second;
    }
    return line;
}

uint64_t MethodResolver::resolve_native(const std::string& library, const std::string& function) {
    std::string key = library;
    key.push_back('\0');
    key += function;
    auto found = native_ids_.find(key);
    if (found != native_ids_.end()) return found->second;
    MethodEntry entry;
    entry.id = entries_.size() + 1;
    entry.class_name = library;
    entry.method_name = function;
    entry.descriptor = "()V";
    entries_.push_back(entry);
    native_ids_.emplace(std::move(key), entry.id);
    return entry.id;
}

const MethodEntry* MethodResolver::entry(uint64_t id) const {
    return id >= 1 && id <= entries_.size() ? &entries_[id - 1] : nullptr;
}

}  // namespace stackreq
