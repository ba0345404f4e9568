#include "counters.h"

namespace stackreq {

std::atomic<int64_t> Counters::values_[static_cast<int>(Counter::kCount)];

const char* Counters::name(Counter c) {
    static const char* const kNames[] = {
#define STACKREQ_COUNTER_NAME(name, description) #name,
        STACKREQ_COUNTERS(STACKREQ_COUNTER_NAME)
#undef STACKREQ_COUNTER_NAME
    };
    int index = static_cast<int>(c);
    return index >= 0 && index < static_cast<int>(Counter::kCount) ? kNames[index] : "?";
}

void Counters::reset_for_test() {
    for (auto& value : values_) value.store(0);
}

}  // namespace stackreq
