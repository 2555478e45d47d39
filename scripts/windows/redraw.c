/* TEST FIXTURE for the Wine suite (scripts/windows/wine-suite.cjs); never shipped. Draws two
 * full-screen frames through the console API, as a full-screen program does: every cell of
 * the window filled with 'A' and "frame 1" at the top left; after a typed line, every cell
 * filled with 'B' and "frame 2" at row 5. Exits 0 after a second line (200 + step on an
 * error). Built by wine-test.sh. */
#include <stdio.h>
#include <string.h>
#include <windows.h>

static int frame(HANDLE out, char fill, SHORT row, const char *label)
{
    CONSOLE_SCREEN_BUFFER_INFO info;
    if (!GetConsoleScreenBufferInfo(out, &info))
        return 0;
    SHORT width = info.srWindow.Right - info.srWindow.Left + 1;
    SHORT height = info.srWindow.Bottom - info.srWindow.Top + 1;
    DWORD n;
    for (SHORT y = 0; y < height; y++) {
        COORD at = { info.srWindow.Left, (SHORT)(info.srWindow.Top + y) };
        if (!FillConsoleOutputCharacterA(out, fill, width, at, &n))
            return 0;
    }
    COORD at = { info.srWindow.Left, (SHORT)(info.srWindow.Top + row) };
    return WriteConsoleOutputCharacterA(out, label, (DWORD)strlen(label), at, &n);
}

int main(void)
{
    HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE);
    char line[256];
    if (!frame(out, 'A', 0, "frame 1"))
        return 201;
    if (!fgets(line, sizeof line, stdin))
        return 202;
    if (!frame(out, 'B', 5, "frame 2"))
        return 203;
    if (!fgets(line, sizeof line, stdin))
        return 204;
    return 0;
}
