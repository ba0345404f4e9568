#include "jdk_hooks/java_exception.h"

namespace stackreq {

std::string take_java_exception(JNIEnv* jni) {
    jthrowable thrown = jni->ExceptionOccurred();
    if (thrown == nullptr) return "";
    jni->ExceptionClear();
    std::string text = "a Java exception";
    jclass throwable = jni->FindClass("java/lang/Throwable");
    jmethodID to_string =
        throwable == nullptr ? nullptr : jni->GetMethodID(throwable, "toString", "()Ljava/lang/String;");
    jstring description =
        to_string == nullptr ? nullptr : static_cast<jstring>(jni->CallObjectMethod(thrown, to_string));
    if (jni->ExceptionCheck()) jni->ExceptionClear();
    const char* chars = description == nullptr ? nullptr : jni->GetStringUTFChars(description, nullptr);
    if (chars != nullptr) {
        text = chars;
        jni->ReleaseStringUTFChars(description, chars);
    }
    for (char& c : text) {
        if (c == '\n' || c == '\r') c = ' ';
    }
    if (description != nullptr) jni->DeleteLocalRef(description);
    if (throwable != nullptr) jni->DeleteLocalRef(throwable);
    jni->DeleteLocalRef(thrown);
    return text;
}

}  // namespace stackreq
