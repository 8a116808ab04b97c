/* A stand-in caller of the run engine (sandbox.h) for tests/frontend/
 * stdin.t: runs `python -I -B -c SOURCE` in a fresh private workdir, cold
 * or warm, with the run spec's stdin and stdout options, and prints each
 * run's result as one JSON line (run_result_to_json's, and what the
 * engine adds: output_limited, the bytes of the stdout file, the warm
 * count). Links libsbx, as sbx-run does.
 *
 *   run-engine [--warm] [--tier T] [--runs N] [--timeout MS]
 *              [--stdin-file F | --stdin-text S] [--stdout-file F]
 *              [--stdout-limit N] SOURCE
 *
 * SOURCE is the text of the program, an argument of this test tool alone
 * (sbx never puts program text on argv). */
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results.h"
#include "sandbox.h"
#include "tier.h"

struct args {
        struct sandbox_opts sb;
        struct run_spec spec;
        const char *stdout_path, *source;
        int runs;
};

static void die(const char *what, const struct sbx_err *err)
{
        fprintf(stderr, "run-engine: %s: %s\n", what, err ? err->msg : "bad usage");
        exit(2);
}

static void warn(const char *msg, void *ctx)
{
        fprintf(stderr, "run-engine: %s\n", msg);
}

static void parse(int argc, char **argv, struct args *a)
{
        static const struct option opts[] = {
                { "warm", no_argument, NULL, 'w' }, { "tier", required_argument, NULL, 't' },
                { "runs", required_argument, NULL, 'n' }, { "timeout", required_argument, NULL, 'T' },
                { "stdin-file", required_argument, NULL, 'f' }, { "stdin-text", required_argument, NULL, 's' },
                { "stdout-file", required_argument, NULL, 'o' }, { "stdout-limit", required_argument, NULL, 'l' },
                { NULL, 0, NULL, 0 },
        };
        int c;

        sandbox_opts_init(&a->sb);
        a->sb.warn = warn;
        a->runs = 1;
        while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
                switch (c) {
                case 'w': a->sb.warm = true; break;
                case 't':
                        if (tier_from_name(optarg, &a->sb.force_tier) < 0)
                                die("--tier", NULL);
                        break;
                case 'n': a->runs = atoi(optarg); break;
                case 'T': a->spec.timeout_ms = atoll(optarg); break;
                case 'f': a->spec.stdin_path = optarg; break;
                case 's': a->spec.stdin_data = optarg; a->spec.stdin_len = strlen(optarg); break;
                case 'o': a->stdout_path = optarg; break;
                case 'l': a->spec.stdout_limit_bytes = atoll(optarg); break;
                default: die("options", NULL);
                }
        }
        if (optind != argc - 1)
                die("one SOURCE", NULL);
        a->source = argv[optind];
}

/* The file's bytes, its length, and whether they all are byte c. */
static void add_file(cJSON *o, int fd, char c)
{
        struct stat st;
        char buf[65536];
        bool same = true;
        ssize_t n;

        fstat(fd, &st);
        cJSON_AddNumberToObject(o, "file_bytes", (double)st.st_size);
        lseek(fd, 0, SEEK_SET);
        while ((n = read(fd, buf, sizeof(buf))) > 0)
                for (ssize_t i = 0; i < n; i++)
                        same &= buf[i] == c;
        cJSON_AddBoolToObject(o, "file_all_x", same);
}

static void run_once(struct sandbox *sb, struct args *a, int out_fd)
{
        struct sbx_err err = { 0 };
        struct run_result res = { 0 };
        char *dir = sandbox_mkdtemp(sb, &err);
        char *argv[] = { (char *)sandbox_python(sb), "-I", "-B", "-c", (char *)a->source, NULL };

        if (!dir)
                die("workdir", &err);
        a->spec.argv = argv;
        a->spec.workdir = dir;
        a->spec.private_workdir = true;
        if (out_fd > 0 && (ftruncate(out_fd, 0) < 0 || lseek(out_fd, 0, SEEK_SET) < 0))
                die("stdout file", NULL);
        a->spec.stdout_fd = out_fd;
        if (sbx_run_sync(sb, &a->spec, NULL, &res, &err) < 0)
                die("run", &err);
        if (res.out.len > 4096) {       /* a test's line, not the flood */
                res.out.len = 4096;
                res.out.data[4096] = '\0';
        }
        res.out.tail_len = 0;
        cJSON *o = run_result_to_json(&res, "");
        cJSON_AddBoolToObject(o, "output_limited", res.output_limited);
        cJSON_AddNumberToObject(o, "stdout_total", (double)res.out.total);
        if (out_fd > 0)
                add_file(o, out_fd, 'x');
        size_t warm = 0, cold = 0;
        const char *why = NULL;
        sandbox_warm_counts(sb, &warm, &cold, &why);
        cJSON_AddNumberToObject(o, "warm_runs", (double)warm);
        if (why)
                cJSON_AddStringToObject(o, "cold_why", why);
        char *text = cJSON_PrintUnformatted(o);
        printf("%s\n", text);
        fflush(stdout);
        free(text);
        cJSON_Delete(o);
        run_result_free(&res);
        sandbox_rmdtemp(dir, NULL);
        free(dir);
}

int main(int argc, char **argv)
{
        struct args a = { 0 };
        struct sandbox *sb;
        struct sbx_err err = { 0 };
        int out_fd = 0;

        parse(argc, argv, &a);
        if (a.stdout_path && (out_fd = open(a.stdout_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0)
                die("--stdout-file", NULL);
        if (sandbox_open(&sb, &a.sb, &err) < 0)
                die("sandbox", &err);
        if (a.sb.warm)
                sandbox_warm_expect(sb, 1);
        for (int i = 0; i < a.runs; i++)
                run_once(sb, &a, out_fd);
        sandbox_close(sb);
        return 0;
}
