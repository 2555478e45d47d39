/* bcryptprimitives.dll for Wine 8, which lacks ProcessPrng: Rust's std
 * (>= 1.78) on Windows draws its random bytes from ProcessPrng, so a Rust
 * binary does not start under Wine 8 without it. This DLL exports
 * ProcessPrng and fills the buffer with SystemFunction036 (RtlGenRandom),
 * which Wine has. Only for running the Windows build under Wine; never
 * shipped. Built by scripts/windows/wine-test.sh. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    while (len > 0) {
        ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
