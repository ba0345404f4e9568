#include "counters.h"

#include <initializer_list>

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

int64_t Counters::requests() {
    int64_t total = get(Counter::accepted) + get(Counter::throttled);
    for (Counter c : {Counter::rejected_wrong_phase, Counter::rejected_not_available, Counter::rejected_invalid_thread,
                      Counter::rejected_thread_not_alive, Counter::rejected_unsupported, Counter::rejected_other}) {
        total += get(c);
    }
    return total;
}

void Counters::reset_for_test() {
    for (auto& value : values_) value.store(0);
}

}  // namespace stackreq
