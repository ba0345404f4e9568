# JNI_INCLUDES: where jni.h and jvmti.h are, for every native build of the project (the agents,
# their unit tests, the test agents). The headers are stable across JDK 17..25, so any JDK does:
# -DJDK_HOME, else $JAVA_HOME, else the first JDK installed under /usr/lib/jvm.
if(NOT JDK_HOME)
  if(DEFINED ENV{JAVA_HOME})
    set(JDK_HOME $ENV{JAVA_HOME})
  else()
    file(GLOB INSTALLED_JVMTI_HEADERS /usr/lib/jvm/*/include/jvmti.h)
    if(NOT INSTALLED_JVMTI_HEADERS)
      message(FATAL_ERROR "no JDK headers under /usr/lib/jvm: set JAVA_HOME or -DJDK_HOME to a JDK home")
    endif()
    list(GET INSTALLED_JVMTI_HEADERS 0 first_header)
    get_filename_component(JDK_HOME ${first_header} DIRECTORY)
    get_filename_component(JDK_HOME ${JDK_HOME} DIRECTORY)
  endif()
endif()
set(JNI_INCLUDES ${JDK_HOME}/include ${JDK_HOME}/include/linux)
