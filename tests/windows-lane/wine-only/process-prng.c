/*
 * Wine lane only — never shipped. Wine 8's bcryptprimitives.dll lacks ProcessPrng, which Rust's std (esbuild's
 * and rolldown's win32 builds) imports since Rust 1.78. This stand-in has the documented signature
 * (learn.microsoft.com, "ProcessPrng function": BOOL ProcessPrng(PBYTE pbData, SIZE_T cbData), always TRUE) and
 * fills the buffer from RtlGenRandom (advapi32 SystemFunction036), which Wine has.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T size) {
  while (size > 0) {
    ULONG chunk = size > 0x40000000 ? 0x40000000 : (ULONG)size;
    SystemFunction036(data, chunk);
    data += chunk;
    size -= chunk;
  }
  return TRUE;
}
