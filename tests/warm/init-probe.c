/* A stand-in for sbx-run-init (frontend/warm/zygote/init/) for tests/warm/zygote.t:
 * spawned by the zygote with sbx-run-init's request (argv[1] its info fd),
 * it reports the capabilities it was exec'd with as the run's first E line
 * and exits, so that the run's message says what a program sbx-run hands
 * the zygote could use: "E init-probe CapPrm=... CapEff=... CapAmb=...". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
        char line[256] = "E init-probe", buf[128];
        FILE *f = fopen("/proc/self/status", "r");
        int info = argc > 1 ? atoi(argv[1]) : 2;
        size_t n;

        while (f && fgets(buf, sizeof(buf), f))
                if (!strncmp(buf, "CapPrm:", 7) || !strncmp(buf, "CapEff:", 7) || !strncmp(buf, "CapAmb:", 7)) {
                        buf[strcspn(buf, "\n")] = '\0';
                        n = strlen(line);
                        snprintf(line + n, sizeof(line) - n, " %.6s=%s", buf, buf + 7 + strspn(buf + 7, "\t "));
                }
        n = strlen(line);
        snprintf(line + n, sizeof(line) - n, "\n");
        if (write(info, line, strlen(line)) < 0)
                return 2;
        return 127;
}
