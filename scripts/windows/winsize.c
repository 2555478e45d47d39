/* A console program for the Wine suite (scripts/windows/wine-suite.cjs):
 * reads one line of console input, then exits with the console's width in
 * columns (or 200 + the error when it cannot tell). Typing into a session
 * and resizing it are seen in the exit code, without reading its output.
 * Built by scripts/windows/wine-test.sh; never shipped. */
#include <stdio.h>
#include <windows.h>

int main(void)
{
    char line[256];
    CONSOLE_SCREEN_BUFFER_INFO info;
    if (!fgets(line, sizeof line, stdin))
        return 201;
    if (!GetConsoleScreenBufferInfo(GetStdHandle(STD_OUTPUT_HANDLE), &info))
        return 202;
    return info.srWindow.Right - info.srWindow.Left + 1;
}
