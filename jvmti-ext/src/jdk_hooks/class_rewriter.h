// Rewriting a class of the JDK in a running JVM, for the hooks into JFR (chunk_hook.h,
// enabled_flag_hook.h): a small class of stackreq's is defined in the boot class loader, its
// natives registered, the JDK class's module made to read it, and the JDK class retransformed
// with a Java transformer of the events jar (ASM) that inserts the calls. Each step is checked;
// a failure is one line naming what is missing, and the JDK class stays as it was.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <string>

namespace stackreq {

struct ClassRewrite {
    const char* target;          // the JDK class, "jdk/jfr/internal/RepositoryChunk"
    const char* transformer;     // has static byte[] transform(byte[]) and String lastError()
    const char* hook_class;      // the boot class the rewritten code calls
    const JNINativeMethod* hook_natives;
    jint hook_native_count;
};

// Defines the class file in bytes as name in the boot class loader, or finds it when an earlier
// call defined it; null (exception cleared) when neither works. Normal context.
jclass define_boot_class(JNIEnv* jni, const char* name, jbyteArray bytes);

class ClassRewriter {
public:
    // Normal context, a thread attached to the VM. hook_class_bytes: the class file of
    // rewrite.hook_class. Returns false and sets *error when any step fails.
    static bool rewrite(JNIEnv* jni, const ClassRewrite& rewrite, jbyteArray hook_class_bytes, std::string* error);

    // The agent's JVMTI ClassFileLoadHook: rewrites the class a rewrite() in progress retransforms.
    static void on_class_file_load(jvmtiEnv* jvmti, JNIEnv* jni, const char* name, jint length,
                                   const unsigned char* data, jint* new_length, unsigned char** new_data);
};

}  // namespace stackreq
