/* TEST FIXTURE for the Wine suite (scripts/windows/wine-suite.cjs); never shipped. Opens the
 * console's CONIN$ and CONOUT$ itself, as conshim.exe does for the programs it starts (so it
 * needs no shim under Wine, and is one process fewer per session), then answers each typed
 * line with "= LINE"; "exit" ends it with 0. Built by wine-test.sh. */
#include <stdio.h>
#include <string.h>
#include <windows.h>

int main(void)
{
    HANDLE in = CreateFileW(L"CONIN$", GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE,
                            NULL, OPEN_EXISTING, 0, NULL);
    HANDLE out = CreateFileW(L"CONOUT$", GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE,
                             NULL, OPEN_EXISTING, 0, NULL);
    if (in == INVALID_HANDLE_VALUE || out == INVALID_HANDLE_VALUE)
        return 250;
    char line[512];
    char reply[600];
    DWORD n;
    WriteFile(out, "ready\r\n", 7, &n, NULL);
    for (;;) {
        if (!ReadFile(in, line, sizeof line - 1, &n, NULL) || n == 0)
            return 201;
        while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == '\n'))
            n--;
        line[n] = 0;
        if (strcmp(line, "exit") == 0)
            return 0;
        int len = snprintf(reply, sizeof reply, "= %s\r\n", line);
        WriteFile(out, reply, (DWORD)len, &n, NULL);
    }
}
