# Cross build for aarch64 Linux with Debian's cross compiler (g++-aarch64-linux-gnu), as
# build-aarch64.sh runs it:
#   cmake -S jvmti-ext -B BUILD -DCMAKE_TOOLCHAIN_FILE=jvmti-ext/cmake/aarch64-linux-gnu.cmake
# The JDK headers (jni.h, jvmti.h, include/linux/jni_md.h) are the same on every Linux
# architecture, so the host's JDK provides them (cmake/jdk_headers.cmake).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# The cross compiler's own sysroot (libc6-dev-arm64-cross): libraries and headers from there only.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
# Unit tests run through user-mode emulation (ctest runs them with qemu-aarch64-static). Their
# executables (only the tests and tools are executables here; the agents are shared libraries)
# name the sysroot's loader and search its libraries first (DT_RPATH, which also covers the
# libraries' own dependencies): with -L alone the loader, found under the prefix, still took libc
# from the host's /lib/aarch64-linux-gnu where Debian's libc6:arm64 is installed (a multiarch
# machine), and the mixed versions left the threaded tests spinning.
set(CMAKE_EXE_LINKER_FLAGS_INIT
    "-Wl,--dynamic-linker=/usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 -Wl,--disable-new-dtags,-rpath,/usr/aarch64-linux-gnu/lib")
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static -L /usr/aarch64-linux-gnu)
# Emulation is 5 to 50 times slower than the tests' native run.
set(STACKREQ_TEST_TIMEOUT 300)
