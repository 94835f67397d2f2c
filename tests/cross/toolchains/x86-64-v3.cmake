# x86-64 with -march=x86-64-v3 (AVX2 and FMA). Runs natively on a CPU with FMA, otherwise under
# qemu-x86_64 -cpu max (RETCON_CROSS_EMULATE=ON, decided by scripts/determinism-matrix.sh).
set(CMAKE_CXX_COMPILER g++)
set(CMAKE_CXX_FLAGS_INIT -march=x86-64-v3)
if(RETCON_CROSS_EMULATE)
  set(CMAKE_SYSTEM_NAME Linux) # marks the build as cross-compiled, so ctest uses the emulator
  set(CMAKE_SYSTEM_PROCESSOR x86_64)
  set(CMAKE_CROSSCOMPILING_EMULATOR qemu-x86_64 -cpu max)
endif()
