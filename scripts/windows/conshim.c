/* TEST FIXTURE, never shipped, never used by ptypilot itself: the console-handle shim for
 * the Wine suite (scripts/windows/wine-suite.cjs). `conshim.exe PROGRAM ARGS...` opens the
 * console it runs on (CONIN$, CONOUT$) and starts PROGRAM with those as its standard handles,
 * then exits with PROGRAM's exit code.
 *
 * Why: a program started on a pseudo console with null standard handles (what ptypilot and
 * node-pty pass) gets the console's own handles on Windows; Wine's console host (8 and 10)
 * does not give them, so the program reads end-of-file and writes nowhere. A program that
 * opens CONIN$/CONOUT$ itself works under Wine, and so does any program started through this
 * shim. Every suite piece that runs through it says so ("[shim]").
 *
 * The shim ignores Ctrl+C itself (a handler that returns TRUE, which children do not
 * inherit), so what a Ctrl+C does is what the program does. Built by wine-test.sh.
 *
 * Copied as shim\cmd.exe, it runs the system's cmd.exe with its own arguments instead, so a
 * caller that starts "cmd.exe" by path (ptypilot's Shell) gets cmd through the shim. */
#include <string.h>
#include <wchar.h>
#include <windows.h>

static BOOL WINAPI ignore(DWORD type)
{
    (void)type;
    return TRUE;
}

int main(void)
{
    SECURITY_ATTRIBUTES sa = { sizeof sa, NULL, TRUE };
    HANDLE in = CreateFileW(L"CONIN$", GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE,
                            &sa, OPEN_EXISTING, 0, NULL);
    HANDLE out = CreateFileW(L"CONOUT$", GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE,
                             &sa, OPEN_EXISTING, 0, NULL);
    if (in == INVALID_HANDLE_VALUE || out == INVALID_HANDLE_VALUE)
        return 250;
    /* The rest of our own command line, after the first word, is the program's. */
    wchar_t *line = GetCommandLineW();
    int quoted = 0;
    while (*line && (quoted || (*line != L' ' && *line != L'\t'))) {
        if (*line == L'"')
            quoted = !quoted;
        line++;
    }
    while (*line == L' ' || *line == L'\t')
        line++;
    wchar_t self[MAX_PATH];
    wchar_t as_cmd[8192];
    DWORD len = GetModuleFileNameW(NULL, self, MAX_PATH);
    if (len >= 8 && _wcsicmp(self + len - 8, L"\\cmd.exe") == 0) {
        wchar_t system[MAX_PATH];
        GetSystemDirectoryW(system, MAX_PATH);
        _snwprintf(as_cmd, 8192, L"\"%ls\\cmd.exe\" %ls", system, line);
        as_cmd[8191] = 0;
        line = as_cmd;
    }
    STARTUPINFOW si;
    ZeroMemory(&si, sizeof si);
    si.cb = sizeof si;
    si.dwFlags = STARTF_USESTDHANDLES;
    si.hStdInput = in;
    si.hStdOutput = out;
    si.hStdError = out;
    PROCESS_INFORMATION pi;
    SetConsoleCtrlHandler(ignore, TRUE);
    if (!CreateProcessW(NULL, line, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi))
        return 251;
    WaitForSingleObject(pi.hProcess, INFINITE);
    DWORD code = 252;
    GetExitCodeProcess(pi.hProcess, &code);
    return (int)code;
}
