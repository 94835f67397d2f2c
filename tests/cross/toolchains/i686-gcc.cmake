# 32-bit x86 with Debian's GCC cross compiler (g++-i686-linux-gnu). Static binaries run natively
# on an x86-64 kernel. retcon's determinism flags add -msse2 -mfpmath=sse for this processor.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR i686)
set(CMAKE_CXX_COMPILER i686-linux-gnu-g++)
set(CMAKE_EXE_LINKER_FLAGS_INIT -static)
