// Making the JEP's extension ids visible to every JVMTI environment, or finding the VM's own.
#pragma once

#include <jvmti.h>

#include "stackreq.h"

namespace stackreq {

// Returns true and fills *out (vm_native = 1) when the VM's own GetExtensionFunctions lists
// RequestStackTrace; false once stackreq's functions are installed.
bool find_vm_functions(jvmtiEnv* env, stackreq_functions* out);

// Wraps GetExtensionFunctions in the (shared) JVMTI function table of env so that every
// environment also sees stackreq's three functions. Returns false when the table cannot be
// patched. Call in Agent_OnLoad, after find_vm_functions returned false.
bool install_extension_functions(jvmtiEnv* env);

enum class ExtensionMode {
    kVmNative,       // the JDK has the functions: stackreq adds nothing and stays idle
    kRegistered,     // stackreq's functions appear in every environment's list
    kNotRegistered,  // extensions=off: reachable through stackreq_get_functions only
    kFailed          // the function table could not be patched
};

// The Agent_OnLoad decision: forward to the VM when it lists the ids, else register ours
// (when register_ids). *vm_functions is filled in the kVmNative case.
ExtensionMode setup_extension_functions(jvmtiEnv* env, bool register_ids, stackreq_functions* vm_functions);

}  // namespace stackreq
