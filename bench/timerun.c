/* timerun ROUNDS SPECFILE: times commands round-robin, one fork/exec/wait
 * per run, with CLOCK_MONOTONIC (hyperfine's shell and statistics add more
 * noise than the millisecond we want to see). SPECFILE has one command per
 * line: NAME, then the argv, separated by tabs. The first command is the
 * baseline; every run must exit 0, else the benchmark fails (a sandbox that
 * refuses to start would otherwise look very fast). Besides the wall
 * time it prints the median CPU time (user + system, from wait4: the
 * command and every descendant it waited for), which a loaded machine
 * inflates far less than wall time. timerun is a subreaper: what a command
 * leaves to finish after it exits (a sandbox's init tearing its namespaces
 * down, bwrap's inner process) is waited for before the next run, outside
 * the wall time (the caller no longer waits for it) but in the CPU time.
 * Odd rounds run the commands in reverse order. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CMDS 16
#define MAX_ARGS 128
#define MAX_ROUNDS 100000

struct cmd {
        char *name;
        char *argv[MAX_ARGS + 1];
        double *ms, *cpu_ms;
};

static void die(const char *what)
{
        fprintf(stderr, "timerun: %s: %s\n", what, strerror(errno));
        exit(1);
}

static void free_linep(char **p) { free(*p); }

static int read_spec(const char *path, struct cmd *cmds)
{
        FILE *f = fopen(path, "re");
        __attribute__((cleanup(free_linep))) char *line = NULL;
        size_t cap = 0;
        int n = 0, lineno = 0;

        if (!f)
                die(path);
        while (getline(&line, &cap, f) > 0) {
                char *save = NULL, *tok;
                int argc = 0;

                lineno++;
                line[strcspn(line, "\n")] = '\0';
                if (line[0] == '\0' || line[0] == '#')
                        continue;
                if (n == MAX_CMDS) {
                        fprintf(stderr, "timerun: %s:%d: more than %d commands\n", path, lineno, MAX_CMDS);
                        exit(2);
                }
                tok = strtok_r(line, "\t", &save);
                if (!tok) {
                        fprintf(stderr, "timerun: %s:%d: no name\n", path, lineno);
                        exit(2);
                }
                cmds[n].name = strdup(tok);
                while ((tok = strtok_r(NULL, "\t", &save)) && argc < MAX_ARGS)
                        cmds[n].argv[argc++] = strdup(tok);
                if (argc == 0 || tok) {
                        fprintf(stderr, "timerun: %s:%d: need 1 to %d arguments\n", path, lineno, MAX_ARGS);
                        exit(2);
                }
                n++;
        }
        fclose(f);
        return n;
}

static double now_ms(void)
{
        struct timespec ts;

        if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
                die("clock_gettime");
        return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double tv_ms(const struct timeval *tv)
{
        return tv->tv_sec * 1e3 + tv->tv_usec / 1e3;
}

/* Wall ms; the CPU ms in *cpu_ms. */
static double run_once(const struct cmd *c, double *cpu_ms)
{
        struct rusage ru;
        double start = now_ms();
        int status;
        pid_t pid = fork();

        if (pid < 0)
                die("fork");
        if (pid == 0) {
                int null = open("/dev/null", O_RDWR | O_CLOEXEC);

                if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0)
                        _exit(126);
                execv(c->argv[0], c->argv);
                _exit(127);
        }
        if (wait4(pid, &status, 0, &ru) < 0)
                die("wait4");
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                fprintf(stderr, "timerun: %s: %s failed (wait status 0x%x)\n",
                        c->name, c->argv[0], status);
                exit(1);
        }
        *cpu_ms = tv_ms(&ru.ru_utime) + tv_ms(&ru.ru_stime);
        double wall = now_ms() - start;
        while (wait4(-1, &status, 0, &ru) > 0)
                *cpu_ms += tv_ms(&ru.ru_utime) + tv_ms(&ru.ru_stime);
        if (errno != ECHILD)
                die("wait4 (orphans)");
        return wall;
}

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;

        return (x > y) - (x < y);
}

static double percentile(const double *sorted, int n, double p)
{
        int i = (int)(p * (n - 1) + 0.5);

        return sorted[i];
}

int main(int argc, char **argv)
{
        struct cmd cmds[MAX_CMDS];
        int rounds, n, r, i;
        double base = 0, cpu;

        memset(cmds, 0, sizeof(cmds));
        if (argc != 3 || (rounds = atoi(argv[1])) < 1 || rounds > MAX_ROUNDS) {
                fprintf(stderr, "usage: timerun ROUNDS(1..%d) SPECFILE\n", MAX_ROUNDS);
                return 2;
        }
        if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
                die("PR_SET_CHILD_SUBREAPER");
        n = read_spec(argv[2], cmds);
        if (n == 0) {
                fprintf(stderr, "timerun: %s: no commands\n", argv[2]);
                return 2;
        }
        for (i = 0; i < n; i++) {
                cmds[i].ms = calloc(rounds, sizeof(double));
                cmds[i].cpu_ms = calloc(rounds, sizeof(double));
                if (!cmds[i].ms || !cmds[i].cpu_ms)
                        die("calloc");
                run_once(&cmds[i], &cpu); /* warm-up: page cache, first exec */
        }
        /* Odd rounds in reverse order: no variant always runs right after the same other. */
        for (r = 0; r < rounds; r++)
                for (int k = 0; k < n; k++) {
                        i = r % 2 ? n - 1 - k : k;
                        cmds[i].ms[r] = run_once(&cmds[i], &cmds[i].cpu_ms[r]);
                }

        printf("%-14s %9s %9s %9s %8s %12s %10s\n", "variant", "median_ms", "p90_ms",
               "min_ms", "ratio", "overhead_ms", "cpu_ms");
        for (i = 0; i < n; i++) {
                double med, p90;

                qsort(cmds[i].ms, rounds, sizeof(double), cmp_double);
                qsort(cmds[i].cpu_ms, rounds, sizeof(double), cmp_double);
                med = percentile(cmds[i].ms, rounds, 0.5);
                p90 = percentile(cmds[i].ms, rounds, 0.9);
                if (i == 0)
                        base = med;
                printf("%-14s %9.3f %9.3f %9.3f %8.2f %12.3f %10.3f\n", cmds[i].name, med, p90,
                       cmds[i].ms[0], med / base, med - base, percentile(cmds[i].cpu_ms, rounds, 0.5));
        }
        return 0;
}
