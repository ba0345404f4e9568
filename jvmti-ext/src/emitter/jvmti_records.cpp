#include "emitter/jvmti_records.h"

namespace stackreq {

JvmtiRecords& jvmti_records() {
    static JvmtiRecords records;
    return records;
}

}  // namespace stackreq
