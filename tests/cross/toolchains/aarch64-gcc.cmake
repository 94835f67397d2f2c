# aarch64 (ARM64) with Debian's GCC cross compiler (g++-aarch64-linux-gnu), run under qemu-aarch64.
# Static binaries: qemu needs no target sysroot to run them.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_EXE_LINKER_FLAGS_INIT -static)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
