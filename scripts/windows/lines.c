/* TEST FIXTURE for the Wine suite (scripts/windows/wine-suite.cjs); never shipped.
 * `lines.exe N`: writes "line 1" ... "line N" and then "END N" to its standard output and
 * exits at once, so a session that loses the tail of a program's output (what it wrote just
 * before it exited) is seen. Built by wine-test.sh. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100;
    for (int i = 1; i <= n; i++)
        printf("line %d\n", i);
    printf("END %d\n", n);
    return 0;
}
