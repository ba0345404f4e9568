// Making the JEP's extension ids visible to every JVMTI environment, or finding the VM's own.
#pragma once

#include <jvmti.h>

#include "stackreq.h"

namespace stackreq {

// Looks the three ids up in the list an environment's GetExtensionFunctions returns.
// Returns true and fills *out (vm_native = 1) when the list has RequestStackTrace.
// Deallocates the list with the environment's Deallocate. Exposed for the unit test.
bool find_vm_functions(jvmtiEnv* env, stackreq_functions* out);

// Wraps GetExtensionFunctions in the (shared) JVMTI function table of env so that every
// environment also sees stackreq's three functions. Returns false when the table cannot be
// patched. Call in Agent_OnLoad, after find_vm_functions returned false.
bool install_extension_functions(jvmtiEnv* env);

}  // namespace stackreq
