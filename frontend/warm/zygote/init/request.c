/* The request, from argv (built by the zygote, frontend/warm/zygote/20-processes.py
 * init_argv):
 *   sbx-run-init INFO_FD ZYGOTE_PID END_FD BPF_FD UID GID SHM_BYTES TMPFS_BYTES CWD
 *                [-h HOME]... [-t DIR]... [-b BIND]... [-f FD NAME]...
 * Each value checked; a bad one is a set-up error naming it. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "run_init.h"

static long long number(const char *s, long long lo, long long hi, const char *what)
{
        char *end;
        long long v;

        errno = 0;
        v = strtoll(s, &end, 10);
        if (errno || end == s || *end || v < lo || v > hi)
                init_die(0, "request: %s: want an integer in [%lld, %lld], got '%.40s'", what, lo, hi, s);
        return v;
}

/* Absolute, no empty, "." or ".." component, no trailing slash. */
static const char *clean_path(const char *p, const char *what)
{
        const char *c = p;

        if (p[0] != '/' || strlen(p) >= PATH_MAX)
                init_die(0, "request: %s: want an absolute path", what);
        while (*c == '/' && c[1]) {
                const char *next = strchrnul(c + 1, '/');
                size_t len = (size_t)(next - c - 1);

                if (len == 0 || (len == 1 && c[1] == '.') || (len == 2 && c[1] == '.' && c[2] == '.'))
                        init_die(0, "request: %s: '%.200s' is not a clean path", what, p);
                c = next;
        }
        return p;
}

static const char *file_name(const char *s)
{
        if (!*s || strchr(s, '/') || !strcmp(s, ".") || !strcmp(s, "..") || strlen(s) > NAME_MAX)
                init_die(0, "request: file name '%.200s' is not a plain name", s);
        return s;
}

static void add(const char **list, int *n, int max, const char *p, const char *what)
{
        if (*n >= max)
                init_die(0, "request: more than %d %s", max, what);
        list[(*n)++] = clean_path(p, what);
}

static int options(int argc, char **argv, int i, struct init_request *rq)
{
        const char *opt = argv[i];

        if (i + 1 >= argc || opt[0] != '-' || !opt[1] || opt[2])
                init_die(0, "request: bad option '%.40s'", opt);
        switch (opt[1]) {
        case 'h':
                add(rq->homes, &rq->nhomes, INIT_MAX_HOMES, argv[i + 1], "homes");
                return 2;
        case 't':
                add(rq->tmp_dirs, &rq->ntmp_dirs, INIT_MAX_HOMES, argv[i + 1], "home under /tmp");
                return 2;
        case 'b':
                add(rq->binds, &rq->nbinds, INIT_MAX_BINDS, argv[i + 1], "binds");
                return 2;
        case 'f':
                if (i + 2 >= argc || rq->nfiles >= INIT_MAX_FILES)
                        init_die(0, "request: -f takes FD NAME, at most %d times", INIT_MAX_FILES);
                rq->files[rq->nfiles].fd = (int)number(argv[i + 1], 0, INT_MAX, "file fd");
                rq->files[rq->nfiles++].name = file_name(argv[i + 2]);
                return 3;
        }
        init_die(0, "request: unknown option '%.40s'", opt);
}

void init_parse(int argc, char **argv, struct init_request *rq)
{
        if (argc < 10)
                init_die(0, "request: want INFO ZYGOTE END BPF UID GID SHM TMPFS CWD, got %d words", argc - 1);
        rq->info_fd = (int)number(argv[1], 0, INT_MAX, "info fd");
        init_report_to(rq->info_fd);
        rq->parent = (pid_t)number(argv[2], 1, INT_MAX, "zygote pid");
        rq->end_fd = (int)number(argv[3], 0, INT_MAX, "end fd");
        rq->bpf_fd = (int)number(argv[4], 0, INT_MAX, "bpf fd");
        rq->uid = (uid_t)number(argv[5], 0, UINT_MAX - 1, "uid");
        rq->gid = (gid_t)number(argv[6], 0, UINT_MAX - 1, "gid");
        rq->shm_bytes = number(argv[7], 1, LLONG_MAX, "shm bytes");
        rq->tmpfs_bytes = number(argv[8], 4096, LLONG_MAX / 2, "tmpfs bytes");
        rq->cwd = clean_path(argv[9], "cwd");
        if (strncmp(rq->cwd, "/tmp/", 5))
                init_die(0, "request: cwd: want a path under /tmp/");
        for (int i = 10; i < argc;)
                i += options(argc, argv, i, rq);
}
