/* TEST FIXTURE for the Wine suite (scripts/windows/wine-suite.cjs); never shipped. Installs
 * a console control handler, prints "ready", and waits up to 10 s for Ctrl+C: exits with
 * 100 + the event (100 = CTRL_C_EVENT) once its handler ran, or 7 when none came.
 * Built by wine-test.sh. */
#include <stdio.h>
#include <windows.h>

static volatile LONG event = -1;

static BOOL WINAPI on_control(DWORD type)
{
    event = (LONG)type;
    return TRUE;
}

int main(void)
{
    SetConsoleCtrlHandler(on_control, TRUE);
    printf("ready\n");
    fflush(stdout);
    for (int i = 0; i < 100 && event < 0; i++)
        Sleep(100);
    printf("handler ran: %ld\n", event);
    fflush(stdout);
    return event < 0 ? 7 : 100 + event;
}
