/* The sample formats of the other harnesses: bigcode-evaluation-harness's
 * generations.json (a list, per task in problem order, of full programs)
 * and an evalplus samples directory (DIR/<task_id with / as _>/<n>.py, each
 * a full solution). Both become "solution" samples, as evalplus scores them. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "suite.h"
#include "util.h"

static int add_solution(struct suite *s, struct suite_task *t, long pos,
                        const char *code, const char *file, const char *where,
                        struct sbx_err *err)
{
        struct suite_sample *smp = suite_new_sample(s, err);
        cJSON *sol;

        if (!smp)
                return -1;
        smp->line = pos;
        smp->task = (size_t)(t - s->tasks);
        smp->is_solution = true;
        if (!(smp->fields = cJSON_CreateObject()) ||
            !cJSON_AddItemToObject(smp->fields, "task_id",
                                   cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(t->problem, "task_id"), true)) ||
            !(sol = cJSON_AddStringToObject(smp->fields, "solution", code)) ||
            (file && !cJSON_AddStringToObject(smp->fields, "sbx_file", file)))
                return sbx_fail_oom(err, "%s", where);
        smp->code = sol->valuestring;
        t->n_samples++;
        return 0;
}

int suite_load_bigcode(struct suite *s, const char *path, cJSON *arr, struct sbx_err *err)
{
        size_t n = (size_t)cJSON_GetArraySize(arr), i = 0;
        cJSON *gens, *g;
        char where[4096];
        long pos = 0;

        if (n > s->n_tasks)
                return sbx_fail(err, 0, "%s: %zu lists of generations for %zu problems in %s "
                                "(bigcode generations.json: one list per problem, in "
                                "problem order)", path, n, s->n_tasks, s->problems_path);
        cJSON_ArrayForEach(gens, arr) {
                int j = 0;
                snprintf(where, sizeof(where), "%s: element %zu", path, i + 1);
                if (!cJSON_IsArray(gens))
                        return sbx_fail(err, 0, "%s: expected a list of strings (bigcode "
                                        "generations.json)", where);
                cJSON_ArrayForEach(g, gens) {
                        if (!cJSON_IsString(g))
                                return sbx_fail(err, 0, "%s[%d]: expected a string", where, j);
                        if (add_solution(s, &s->tasks[i], ++pos, g->valuestring, NULL,
                                         where, err) < 0)
                                return -1;
                        j++;
                }
                i++;
        }
        s->samples_format = "bigcode-generations";
        return 0;
}

/* ---- evalplus samples directory ---- */

static int cmp_name(const void *a, const void *b)
{
        return suite_natural_cmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(names[i]);
        free(names);
}

/* The entries of dir (no dot files) in natural order; files ending in
 * suffix only when suffix is given. */
static int list_dir(const char *dir, const char *suffix, char ***out, size_t *n,
                    struct sbx_err *err)
{
        DIR *d = opendir(dir);
        struct dirent *e;
        char **names = NULL;
        size_t cap = 0;

        *n = 0;
        if (!d)
                return sbx_fail(err, errno, "%s", dir);
        while ((errno = 0, e = readdir(d))) {
                size_t len = strlen(e->d_name), sl = suffix ? strlen(suffix) : 0;
                if (e->d_name[0] == '.' || (suffix && (len <= sl || strcmp(e->d_name + len - sl, suffix))))
                        continue;
                if (*n == cap) {
                        char **nn = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof(*nn));
                        if (!nn)
                                goto oom;
                        names = nn;
                }
                if (!(names[(*n)++] = strdup(e->d_name)))
                        goto oom;
        }
        closedir(d);
        qsort(names, *n, sizeof(*names), cmp_name);
        *out = names;
        return 0;
oom:
        closedir(d);
        free_names(names, *n);
        return sbx_fail_oom(err, "%s", dir);
}

/* evalplus writes task_id.replace("/", "_"); read it back the same way. */
static struct suite_task *dir_task(const struct suite *s, const char *name)
{
        auto_free char *id = strdup(name);
        struct suite_task *t;

        if (!id)
                return NULL;
        if ((t = suite_find_task(s, id)))
                return t;
        for (char *p = id; *p; p++)
                if (*p == '_')
                        *p = '/';
        return suite_find_task(s, id);
}

static int load_task_dir(struct suite *s, const char *dir, const char *name,
                         long *pos, struct sbx_err *err)
{
        auto_free char *sub = NULL;
        struct suite_task *t = dir_task(s, name);
        char **files = NULL;
        size_t n = 0;
        int rc = 0;

        if (!t)
                return sbx_fail(err, 0, "%s/%s: no task \"%s\" (or with / for _) in %s",
                                dir, name, name, s->problems_path);
        if (asprintf(&sub, "%s/%s", dir, name) < 0)
                return sbx_fail_oom(err, "%s", dir);
        if (list_dir(sub, ".py", &files, &n, err) < 0)
                return -1;
        for (size_t i = 0; i < n && rc == 0; i++) {
                auto_free char *path = NULL, *rel = NULL, *code = NULL;
                size_t len;
                if (asprintf(&path, "%s/%s", sub, files[i]) < 0 ||
                    asprintf(&rel, "%s/%s", name, files[i]) < 0) {
                        rc = sbx_fail_oom(err, "%s", sub);
                        break;
                }
                rc = suite_read_file(path, &code, &len, err);
                if (rc == 0 && memchr(code, '\0', len))
                        rc = sbx_fail(err, 0, "%s: NUL byte in file (binary data?)", path);
                if (rc == 0)
                        rc = add_solution(s, t, ++*pos, code, rel, path, err);
        }
        free_names(files, n);
        return rc;
}

/* A directory's samples are hashed as loaded (task, file name, code). */
static void hash_samples(const struct suite *s, char hash[17])
{
        uint64_t h = SBX_FNV1A_INIT;

        for (size_t i = 0; i < s->n_samples; i++) {
                const cJSON *f = cJSON_GetObjectItemCaseSensitive(s->samples[i].fields, "sbx_file");
                const char *parts[] = { s->tasks[s->samples[i].task].task_id,
                                        cJSON_GetStringValue(f), s->samples[i].code };
                for (size_t k = 0; k < 3; k++) {
                        const char *p = parts[k] ? parts[k] : "";
                        h = sbx_fnv1a(h, p, strlen(p) + 1);     /* with the NUL */
                }
        }
        snprintf(hash, 17, "%016llx", (unsigned long long)h);
}

int suite_load_evalplus_dir(struct suite *s, const char *dir, struct sbx_err *err)
{
        char **names = NULL;
        size_t n = 0;
        long pos = 0;
        int rc = 0;

        if (list_dir(dir, NULL, &names, &n, err) < 0)
                return -1;
        for (size_t i = 0; i < n && rc == 0; i++) {
                auto_free char *sub = NULL;
                struct stat st;
                if (asprintf(&sub, "%s/%s", dir, names[i]) < 0) {
                        rc = sbx_fail_oom(err, "%s", dir);
                        break;
                }
                if (stat(sub, &st) < 0)
                        rc = sbx_fail(err, errno, "%s", sub);
                else if (!S_ISDIR(st.st_mode))
                        rc = sbx_fail(err, 0, "%s: not a task directory (an evalplus samples "
                                      "directory holds DIR/<task_id with / as _>/<n>.py)", sub);
                else
                        rc = load_task_dir(s, dir, names[i], &pos, err);
        }
        free_names(names, n);
        s->samples_format = "evalplus-samples-dir";
        hash_samples(s, s->samples_hash);
        return rc;
}
