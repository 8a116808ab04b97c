/* workdir-cost DIR N: the CPU one --file run's program placement costs,
 * the two ways sbx-run does it: a workdir on the host (mkdtemp in DIR, the
 * program created and written in it, then unlink and rmdir: the helper and
 * weak tiers) against a memfd (create, write, close: the bwrap tier, which
 * copies it into the run's tmpfs itself). N interleaved rounds; median and
 * mean CPU per round of each (CLOCK_PROCESS_CPUTIME_ID), in microseconds.
 * On an ext4 /tmp with files being deleted nearby, the inode allocator's
 * scan of recently deleted inodes is what the host way pays. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static const char program[] = "x = 1\n";

static double cpu_us(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void die(const char *what)
{
        perror(what);
        exit(1);
}

static void on_host(const char *dir)
{
        char path[4096], file[4200];

        snprintf(path, sizeof(path), "%s/sbx-run-XXXXXX", dir);
        if (!mkdtemp(path))
                die("mkdtemp");
        snprintf(file, sizeof(file), "%s/program.py", path);
        int fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0 || write(fd, program, sizeof(program) - 1) < 0 || close(fd) < 0)
                die(file);
        if (unlink(file) < 0 || rmdir(path) < 0)
                die("unlink, rmdir");
}

static void in_memory(void)
{
        int fd = memfd_create("sbx-program", MFD_CLOEXEC);

        if (fd < 0 || write(fd, program, sizeof(program) - 1) < 0 || close(fd) < 0)
                die("memfd");
}

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;

        return (x > y) - (x < y);
}

static void report(const char *name, double *v, int n)
{
        double sum = 0;

        for (int i = 0; i < n; i++)
                sum += v[i];
        qsort(v, (size_t)n, sizeof(*v), cmp_double);
        printf("%-10s median %8.1f us  mean %8.1f us\n", name, v[n / 2], sum / n);
}

int main(int argc, char **argv)
{
        int n = argc > 2 ? atoi(argv[2]) : 0;

        if (argc != 3 || n <= 0) {
                fprintf(stderr, "usage: workdir-cost DIR N\n");
                return 2;
        }
        double *host = calloc((size_t)n, sizeof(double)), *mem = calloc((size_t)n, sizeof(double));
        if (!host || !mem)
                die("calloc");
        for (int i = 0; i < n; i++) {
                double t0 = cpu_us();
                on_host(argv[1]);
                double t1 = cpu_us();
                in_memory();
                double t2 = cpu_us();
                host[i] = t1 - t0;
                mem[i] = t2 - t1;
        }
        report("host", host, n);
        report("memfd", mem, n);
        return 0;
}
