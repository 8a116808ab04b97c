/* evalplus's ground truth: every task's reference solution (prompt +
 * canonical_solution) run in the sandbox on its base and plus inputs, the
 * return values and the seconds each took. Computed once per problem file
 * and interpreter, and cached: <cache root>/evalplus/<sha256 of the key>.json,
 * the key being the file's sha256, the interpreter's identity and the
 * driver's sha256. The entry is written to a temporary file and renamed, so
 * concurrent runs each see a whole entry (the last rename wins; both are
 * the same truth). A cache problem is a miss, never an error. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "evalplus.h"
#include "interp.h"
#include "sched.h"
#include "sha256.h"
#include "strbuf.h"
#include "suite.h"
#include "util.h"
#include "venv.h"

#define TRUTH_MAGIC "sbx-evalplus-truth 2"    /* 2: large values as digests */
#define PROGRAM_NAME "program.py"

/* Everything the truth depends on, one line. */
static char *truth_key(const struct suite *s, const char *python)
{
        auto_free char *ikey = interp_cache_key(python);
        auto_free char *real = realpath(python, NULL);
        char driver[65];
        char *key = NULL;
        struct stat st;

        if (!ikey) {
                /* not an ELF binary: its path, target and stat stand for it */
                if (!real || stat(real, &st) < 0)
                        return NULL;
                if (asprintf(&ikey, "%s %s %llu %llu %lld.%09ld", python, real,
                             (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
                             (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec) < 0)
                        return NULL;
        }
        sha256_buf_hex(evalplus_driver_source, strlen(evalplus_driver_source), driver);
        if (asprintf(&key, "%s file=%s driver=%s python=%s", TRUTH_MAGIC,
                     s->evalplus->sha256, driver, ikey) < 0)
                return NULL;
        return key;
}

static char *cache_path(const char *key)
{
        auto_free char *root = venv_cache_root();
        auto_free char *dir = NULL;
        char hash[65];
        char *path = NULL;

        if (!root || asprintf(&dir, "%s/evalplus", root) < 0 || sbx_mkdir_p(dir) < 0)
                return NULL;
        sha256_buf_hex(key, strlen(key), hash);
        if (asprintf(&path, "%s/%s.json", dir, hash) < 0)
                return NULL;
        return path;
}

/* True with every task's truth taken from a valid entry for key. */
static bool cache_load(struct suite *s, const char *path, const char *key)
{
        auto_free char *buf = NULL;
        struct sbx_err ignored;
        size_t len;
        cJSON *root, *tasks;
        bool ok = true;

        if (access(path, R_OK) < 0 || suite_read_file(path, &buf, &len, &ignored) < 0)
                return false;
        if (!(root = cJSON_ParseWithLength(buf, len)))
                return false;
        tasks = cJSON_GetObjectItemCaseSensitive(root, "tasks");
        if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "key"))
                   ?: "", key) || !cJSON_IsObject(tasks))
                ok = false;
        for (size_t i = 0; ok && i < s->n_tasks; i++) {
                cJSON *t = cJSON_DetachItemFromObjectCaseSensitive(tasks, s->tasks[i].task_id);
                ok = cJSON_IsObject(t);
                s->evalplus->truth[i] = t;
        }
        if (!ok)
                for (size_t i = 0; i < s->n_tasks; i++) {
                        cJSON_Delete(s->evalplus->truth[i]);
                        s->evalplus->truth[i] = NULL;
                }
        cJSON_Delete(root);
        return ok;
}

static void cache_store(const struct suite *s, const char *path, const char *key)
{
        auto_free char *tmp = NULL;
        auto_free char *text = NULL;
        cJSON *root = cJSON_CreateObject(), *tasks = cJSON_CreateObject();
        int fd;

        if (!root || !tasks || asprintf(&tmp, "%s.XXXXXX", path) < 0) {
                cJSON_Delete(root);
                cJSON_Delete(tasks);
                return;
        }
        cJSON_AddStringToObject(root, "key", key);
        cJSON_AddItemToObject(root, "tasks", tasks);
        for (size_t i = 0; i < s->n_tasks; i++)
                cJSON_AddItemReferenceToObject(tasks, s->tasks[i].task_id,
                                               s->evalplus->truth[i]);
        text = cJSON_PrintUnformatted(root);
        cJSON_Delete(root);
        if (!text || (fd = mkstemp(tmp)) < 0)
                return;
        int ok = sbx_write_all(fd, text, strlen(text)) == 0 && fsync(fd) == 0;
        if (close(fd) < 0 || !ok || rename(tmp, path) < 0)
                unlink(tmp);
}

/* evalplus's limits can pass the helper's ceilings (helper.conf's max_cpu
 * and max_timeout, 300 s by default: the ground truth asks 600 s, a sample
 * of Mbpp/255 about 400), and the helper refuses a run that asks more: such
 * runs get the ceiling, the admin's choice, said once. */
static void read_ceilings(struct evalplus_suite *e, struct sandbox *sb)
{
        if (!sandbox_helper_ceilings(sb, &e->max_timeout_s, &e->max_cpu_s))
                return;
        if ((e->max_timeout_s > 0 && e->max_timeout_s < EVALPLUS_TRUTH_TIMEOUT_S) ||
            (e->max_cpu_s > 0 && e->max_cpu_s < EVALPLUS_TRUTH_TIMEOUT_S))
                fprintf(stderr, "sbx-run: the helper's ceilings (timeout %g s, cpu %g s) are "
                        "below some of evalplus's limits: those runs get the ceiling\n",
                        e->max_timeout_s, e->max_cpu_s);
}

static void clamp_limits(const struct evalplus_suite *e, struct run_spec *spec)
{
        if (e->max_timeout_s > 0 && spec->timeout_ms > (int64_t)(e->max_timeout_s * 1000))
                spec->timeout_ms = (int64_t)(e->max_timeout_s * 1000);
        if (e->max_cpu_s > 0 && spec->cpu_limit_s > (int64_t)e->max_cpu_s)
                spec->cpu_limit_s = (int64_t)e->max_cpu_s;
}

/* ---- computing it ---- */

struct truth_run {
        struct suite *s;
        struct sandbox *sb;
        char **workdirs;
        size_t done;
        bool progress;
};

static int write_file(const char *dir, const char *name, const char *text,
                      struct sbx_err *err)
{
        auto_free char *path = NULL;
        auto_fd fd = -1;

        if (asprintf(&path, "%s/%s", dir, name) < 0)
                return sbx_fail_oom(err, "%s", name);
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 || sbx_write_all(fd, text, strlen(text)) < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "%s", path);
        return 0;
}

static int truth_start(void *vctx, size_t job, struct sbx_run **run, struct sbx_err *err)
{
        struct truth_run *T = vctx;
        const cJSON *pb = T->s->tasks[job].problem;
        static const char *const files[] = { PROGRAM_NAME, EVALPLUS_INPUTS_NAME, NULL };
        auto_free char *program = NULL;
        auto_free char *prog_path = NULL;
        auto_free char *in_path = NULL;
        const char *argv[9];
        struct run_spec spec = { 0 };
        double wall_s;

        if (asprintf(&program, "%s%s",
                     cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(pb, "prompt")),
                     cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(pb, "canonical_solution"))) < 0)
                return sbx_fail_oom(err, "program");
        if (!(T->workdirs[job] = sandbox_mkdtemp(T->sb, err)) ||
            write_file(T->workdirs[job], PROGRAM_NAME, program, err) < 0 ||
            evalplus_write_inputs(T->s, job, false, T->workdirs[job], &wall_s, err) < 0)
                return -1;
        if (asprintf(&prog_path, "%s/%s", T->workdirs[job], PROGRAM_NAME) < 0 ||
            asprintf(&in_path, "%s/%s", T->workdirs[job], EVALPLUS_INPUTS_NAME) < 0)
                return sbx_fail_oom(err, "paths");
        argv[0] = sandbox_python(T->sb);
        argv[1] = "-I";
        argv[2] = "-B";
        argv[3] = "-c";
        argv[4] = evalplus_driver_source;
        argv[5] = "truth";
        argv[6] = prog_path;
        argv[7] = in_path;
        argv[8] = NULL;
        spec.argv = (char *const *)argv;
        spec.workdir = T->workdirs[job];
        spec.private_workdir = true;
        spec.workdir_files = files;
        spec.timeout_ms = EVALPLUS_TRUTH_TIMEOUT_S * 1000;
        spec.cpu_limit_s = EVALPLUS_TRUTH_TIMEOUT_S;
        clamp_limits(T->s->evalplus, &spec);
        return sbx_run_start(T->sb, &spec, run, err);
}

/* {"base": [values], "base_time": [seconds], "plus": ..., "plus_time": ...}
 * from a reference run whose every input returned a value. */
static cJSON *truth_of(const cJSON *recs, const char *task_id, const struct run_result *r,
                       struct sbx_err *err)
{
        cJSON *t = cJSON_CreateObject();
        const cJSON *rec;

        for (int ph = 0; t && ph < EVALPLUS_PHASES; ph++) {
                const char *name = evalplus_phase_names[ph];
                char key[32];
                cJSON *vals = cJSON_AddArrayToObject(t, name);
                snprintf(key, sizeof(key), "%s_time", name);
                cJSON *times = cJSON_AddArrayToObject(t, key);
                double ser_s = 0;
                bool ended = false;
                cJSON_ArrayForEach(rec, recs) {
                        const char *p = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "p"));
                        const char *st = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "s"));
                        const cJSON *i = cJSON_GetObjectItemCaseSensitive(rec, "i");
                        if (!p || strcmp(p, name) || !st || !cJSON_IsNumber(i))
                                continue;
                        if (!strcmp(st, "end")) {
                                ended = true;
                                break;
                        }
                        if (strcmp(st, "ok") || i->valueint != cJSON_GetArraySize(vals)) {
                                const char *m = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "m"));
                                cJSON_Delete(t);
                                return sbx_fail(err, 0, "the reference solution of %s failed on "
                                                "%s input %d: %s %s", task_id, name, i->valueint,
                                                st, m ? m : ""), NULL;
                        }
                        cJSON_AddItemToArray(vals, cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(rec, "v"), true));
                        /* to the microsecond: 17 digits of noise were half the entry */
                        cJSON_AddItemToArray(times, cJSON_CreateNumber(
                                round(json_get_num(rec, "t", 0) * 1e6) / 1e6));
                        ser_s += json_get_num(rec, "st", 0);
                }
                snprintf(key, sizeof(key), "%s_ser", name);
                cJSON_AddNumberToObject(t, key, ser_s);
                if (!ended) {
                        cJSON_Delete(t);
                        return sbx_fail(err, 0, "the reference solution of %s did not finish its "
                                        "%s inputs (%s%s%s)", task_id, name, run_status_name(r->status),
                                        r->detail[0] ? ": " : "", r->detail), NULL;
                }
        }
        return t ? t : (sbx_fail_oom(err, "truth"), NULL);
}

static void remove_tree(char **dir)
{
        auto_free char *cmd = NULL;

        /* sandbox_close removes what is left; these hold two small files */
        if (*dir && asprintf(&cmd, "%s/%s", *dir, PROGRAM_NAME) >= 0) {
                unlink(cmd);
                free(cmd);
                cmd = NULL;
                if (asprintf(&cmd, "%s/%s", *dir, EVALPLUS_INPUTS_NAME) >= 0)
                        unlink(cmd);
                rmdir(*dir);
        }
        free(*dir);
        *dir = NULL;
}

/* HumanEval+'s expected values were 290 MB of cache: the large ones become
 * digests wherever the judge can only ask == of them. */
static void compact(struct suite *s, size_t task)
{
        struct evalplus_judge j = evalplus_judge_for(s, task);
        cJSON *t = s->evalplus->truth[task];

        for (int ph = 0; t && ph < EVALPLUS_PHASES; ph++)
                evalplus_truth_compact(cJSON_GetObjectItemCaseSensitive(t, evalplus_phase_names[ph]),
                                       j.oracle, j.atol, EVALPLUS_DIGEST_ABOVE_BYTES);
}

static int truth_done(void *vctx, size_t job, struct run_result *res, struct sbx_err *err)
{
        struct truth_run *T = vctx;
        cJSON *recs = evalplus_parse_stream(&res->out);

        remove_tree(&T->workdirs[job]);
        if (!recs)
                return sbx_fail(err, 0, "the reference solution of %s: no driver output (%s%s%s)",
                                T->s->tasks[job].task_id, run_status_name(res->status),
                                res->detail[0] ? ": " : "", res->detail);
        T->s->evalplus->truth[job] = truth_of(recs, T->s->tasks[job].task_id, res, err);
        cJSON_Delete(recs);
        compact(T->s, job);
        T->done++;
        if (T->progress)
                fprintf(stderr, "\rground truth: %zu/%zu   ", T->done, T->s->n_tasks);
        return T->s->evalplus->truth[job] ? 0 : -1;
}

static int compute(struct suite *s, struct sandbox *sb, int parallel, struct sbx_err *err)
{
        struct truth_run T = { s, sb, NULL, 0, isatty(2) };
        struct sched_ops ops = { &T, truth_start, truth_done, NULL, NULL };
        static volatile sig_atomic_t never;
        auto_free size_t *jobs = calloc(s->n_tasks + 1, sizeof(size_t));
        sigset_t mask;
        int rc;

        T.workdirs = calloc(s->n_tasks + 1, sizeof(char *));
        if (!jobs || !T.workdirs || sigprocmask(SIG_SETMASK, NULL, &mask) < 0) {
                free(T.workdirs);
                return sbx_fail_oom(err, "truth");
        }
        for (size_t i = 0; i < s->n_tasks; i++)
                jobs[i] = i;
        /* warm, as many zygotes as will serve start together (suite_cli.c) */
        sandbox_warm_expect(sb, parallel > 0 && (size_t)parallel < s->n_tasks ? (size_t)parallel
                                                                               : s->n_tasks);
        rc = sched_run(jobs, s->n_tasks, parallel, &ops, &never, &mask, err);
        for (size_t i = 0; i < s->n_tasks; i++)
                remove_tree(&T.workdirs[i]);
        free(T.workdirs);
        if (T.progress)
                fprintf(stderr, "\n");
        return rc < 0 ? -1 : 0;
}

int evalplus_truth_ensure(struct suite *s, struct sandbox *sb, int parallel,
                          struct sbx_err *err)
{
        auto_free char *key = truth_key(s, sandbox_python(sb));
        auto_free char *path = key && !getenv("SBX_NO_EVALPLUS_CACHE") ? cache_path(key) : NULL;

        read_ceilings(s->evalplus, sb);

        if (path && cache_load(s, path, key))
                return 0;
        if (compute(s, sb, parallel, err) < 0)
                return -1;
        if (path)
                cache_store(s, path, key);
        return 0;
}

/* A sample's run: the driver in "check" mode, with the per-input limits. */
int evalplus_start(const struct suite *s, const struct suite_sample *smp,
                   struct sandbox *sb, const char *workdir, const char *program_path,
                   struct sbx_run **run, struct sbx_err *err)
{
        static const char *const files[] = { "program.py", EVALPLUS_INPUTS_NAME, NULL };
        auto_free char *in_path = NULL;
        struct run_spec spec = { 0 };
        double wall_s;

        if (evalplus_write_inputs(s, smp->task, true, workdir, &wall_s, err) < 0)
                return -1;
        if (asprintf(&in_path, "%s/%s", workdir, EVALPLUS_INPUTS_NAME) < 0)
                return sbx_fail_oom(err, "inputs path");
        const char *argv[] = { sandbox_python(sb), "-I", "-B", "-c", evalplus_driver_source,
                               "check", program_path, in_path, NULL };
        spec.argv = (char *const *)argv;
        spec.workdir = workdir;
        spec.private_workdir = true;
        spec.workdir_files = files;
        /* the phases' limits are wall time, as evalplus's; CPU the same */
        spec.timeout_ms = (int64_t)(wall_s * 1000);
        spec.cpu_limit_s = (int64_t)wall_s + 1;
        clamp_limits(s->evalplus, &spec);
        return sbx_run_start(sb, &spec, run, err);
}
