/* sbx-run --http: the server is sbx-http, a program of its own (it links
 * libmicrohttpd, which every other sbx-run start would pay to load). It
 * is looked for beside sbx-run (the build tree, a test root), then in
 * LIBEXECDIR, and executed with sbx-run's own arguments after
 * `--sbx-run PATH`, so that the suites it runs run this sbx-run. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "http_launch.h"

#define HTTP_PROGRAM "sbx-http"

bool http_launch_wanted(int argc, char **argv)
{
        if (argc > 1 && strcmp(argv[1], "merge") == 0)
                return false;
        for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
                if (strcmp(argv[i], "--http") == 0 || strncmp(argv[i], "--http=", 7) == 0)
                        return true;
        return false;
}

/* PATH of sbx-http beside self, when there is one; else LIBEXECDIR's. */
static void find_server(const char *self, char *path, size_t len)
{
        const char *slash = strrchr(self, '/');

        if (slash && snprintf(path, len, "%.*s/%s", (int)(slash - self), self, HTTP_PROGRAM) < (int)len &&
            access(path, X_OK) == 0)
                return;
        snprintf(path, len, "%s/%s", SBX_LIBEXECDIR, HTTP_PROGRAM);
}

int http_launch(int argc, char **argv)
{
        char self[PATH_MAX], server[PATH_MAX + 16];
        ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
        char **args = calloc((size_t)argc + 3, sizeof(char *));

        if (n < 0 || !args) {
                fprintf(stderr, "sbx-run: --http: %s\n", strerror(errno));
                free(args);
                return SBX_EXIT_SANDBOX;
        }
        self[n] = '\0';
        find_server(self, server, sizeof(server));
        args[0] = server;
        args[1] = "--sbx-run";
        args[2] = self;
        memcpy(args + 3, argv + 1, (size_t)(argc - 1) * sizeof(char *));
        execv(server, args);
        fprintf(stderr, "sbx-run: --http: cannot run %s: %s (it is installed with "
                "sbx-run: make install)\n", server, strerror(errno));
        free(args);
        return SBX_EXIT_SANDBOX;
}
