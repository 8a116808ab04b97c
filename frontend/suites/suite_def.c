/* Suite definitions: the built-in benchmarks (their rows are in
 * suite_table.c), and custom suites described by a JSON file
 * (docs/suites.md). Every error names the suite file. */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "suite.h"
#include "suite_ops.h"
#include "util.h"

/* Where `make install` puts the shipped benchmark data; $SBX_SUITES_DIR
 * overrides it (tests, an uninstalled checkout: SBX_SUITES_DIR=suites). */
#ifndef SBX_SUITES_DIR
#define SBX_SUITES_DIR "/usr/local/share/sbx/suites"
#endif

const char *suite_data_dir(void)
{
        const char *dir = getenv("SBX_SUITES_DIR");

        return dir && *dir ? dir : SBX_SUITES_DIR;
}

int suite_default_problems(const char *suite, char **path, struct sbx_err *err)
{
        const struct suite_row *row = suite_row_find(suite);

        *path = NULL;
        if (row && row->not_shipped)
                return sbx_fail(err, 0, "suite %s: no problem file is shipped (%s): %s and "
                                "pass --problems FILE", suite, row->not_shipped,
                                row->get_problems);
        if (!row || !row->shipped_problems)
                return sbx_fail(err, 0, "suite %s: --problems FILE is required", suite);
        if (asprintf(path, "%s/%s", suite_data_dir(), row->shipped_problems) < 0) {
                *path = NULL;
                return sbx_fail_oom(err, "problems path");
        }
        if (access(*path, R_OK) == 0)
                return 0;
        sbx_fail(err, errno, "suite %s: the shipped problem file %s cannot be "
                 "read (install sbx's data with `make install`, set "
                 "SBX_SUITES_DIR, or pass --problems FILE)", suite, *path);
        free(*path);
        *path = NULL;
        return -1;
}

int suite_def_from_row(struct suite_def *def, const struct suite_row *row, struct sbx_err *err)
{
        memset(def, 0, sizeof(*def));
        def->row = row;
        def->timeout_ms = row->timeout_ms;
        def->name = strdup(row->name);
        return def->name ? 0 : sbx_fail_oom(err, "suite");
}

int suite_def_load(struct suite_def *def, const char *name_or_path, struct sbx_err *err)
{
        const struct suite_row *row = suite_row_find(name_or_path);
        char names[256];

        if (row)
                return suite_def_from_row(def, row, err);
        memset(def, 0, sizeof(*def));
        suite_row_names(names, sizeof(names));
        if (!strchr(name_or_path, '/') && !strstr(name_or_path, ".json"))
                return sbx_fail(err, 0, "unknown suite \"%s\" (%s, or a suite FILE.json)",
                                name_or_path, names);
        return suite_custom_load(def, name_or_path, err);
}

void suite_def_free(struct suite_def *def)
{
        free(def->name);
        free(def->problems);
        free(def->template);
        free(def->canonical_field);
        free(def->python);
        free(def->venv_name);
        sbx_strv_free(def->packages);
        sbx_strv_free(def->provision);
        memset(def, 0, sizeof(*def));
}

/* ---- custom suite files ---- */

/* Relative paths in a suite file are relative to the file's directory. */
static char *resolve(const char *suite_path, const char *rel)
{
        auto_free char *copy = strdup(suite_path);
        char *out = NULL;

        if (!copy)
                return NULL;
        if (rel[0] == '/')
                return strdup(rel);
        if (asprintf(&out, "%s/%s", dirname(copy), rel) < 0)
                return NULL;
        return out;
}

static int get_string(const cJSON *obj, const char *key, char **out,
                      const char *path, struct sbx_err *err)
{
        if (json_dup_str(obj, key, out) >= 0)
                return 0;
        if (errno == ENOMEM)
                return sbx_fail_oom(err, "%s", path);
        return sbx_fail(err, 0, "%s: \"%s\" must be a string", path, key);
}

static int get_list(const cJSON *obj, const char *key, char ***out, bool paths,
                    const char *path, struct sbx_err *err)
{
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key), *it;
        size_t i = 0;

        if (!v)
                return 0;
        if (!cJSON_IsArray(v))
                return sbx_fail(err, 0, "%s: \"%s\" must be a list of strings", path, key);
        if (!(*out = calloc((size_t)cJSON_GetArraySize(v) + 1, sizeof(char *))))
                return sbx_fail_oom(err, "%s", path);
        cJSON_ArrayForEach(it, v) {
                if (!cJSON_IsString(it))
                        return sbx_fail(err, 0, "%s: \"%s\" must be a list of strings", path, key);
                (*out)[i] = paths ? resolve(path, it->valuestring) : strdup(it->valuestring);
                if (!(*out)[i++])
                        return sbx_fail_oom(err, "%s", path);
        }
        return 0;
}

static int check_keys(const cJSON *obj, const char *path, struct sbx_err *err)
{
        static const char *const known[] = {
                "name", "problems", "template", "canonical_field", "timeout",
                "python", "venv", "packages", "provision", "description", NULL,
        };
        const cJSON *it;

        cJSON_ArrayForEach(it, obj) {
                const char *const *k = known;
                while (*k && strcmp(*k, it->string))
                        k++;
                if (!*k)
                        return sbx_fail(err, 0, "%s: unknown key \"%s\"", path, it->string);
        }
        return 0;
}

static int custom_fields(struct suite_def *def, const cJSON *obj, const char *path,
                         struct sbx_err *err)
{
        const cJSON *timeout = cJSON_GetObjectItemCaseSensitive(obj, "timeout");
        auto_free char *problems = NULL;

        if (check_keys(obj, path, err) < 0 ||
            get_string(obj, "template", &def->template, path, err) < 0 ||
            get_string(obj, "canonical_field", &def->canonical_field, path, err) < 0 ||
            get_string(obj, "python", &def->python, path, err) < 0 ||
            get_string(obj, "venv", &def->venv_name, path, err) < 0 ||
            get_string(obj, "problems", &problems, path, err) < 0 ||
            get_list(obj, "packages", &def->packages, false, path, err) < 0 ||
            get_list(obj, "provision", &def->provision, true, path, err) < 0)
                return -1;
        if (!def->template)
                return sbx_fail(err, 0, "%s: missing \"template\" (how a program is built, "
                                "e.g. \"{prompt}{completion}\\n{test}\\n\")", path);
        if (problems && !(def->problems = resolve(path, problems)))
                return sbx_fail_oom(err, "%s", path);
        def->timeout_ms = suite_custom_row.timeout_ms;
        if (timeout) {
                if (!cJSON_IsNumber(timeout) || timeout->valuedouble <= 0 ||
                    timeout->valuedouble > 86400)
                        return sbx_fail(err, 0, "%s: \"timeout\" must be seconds in (0, 86400]", path);
                def->timeout_ms = limit_ms_round_nearest(timeout->valuedouble);
        }
        if ((def->packages || def->provision) && !def->venv_name)
                return sbx_fail(err, 0, "%s: \"packages\"/\"provision\" need a \"venv\" name", path);
        return 0;
}

int suite_custom_load(struct suite_def *def, const char *path, struct sbx_err *err)
{
        auto_free char *buf = NULL;
        size_t len;
        cJSON *obj;
        int rc;

        memset(def, 0, sizeof(*def));
        def->row = &suite_custom_row;
        if (suite_read_file(path, &buf, &len, err) < 0)
                return -1;
        if (!(obj = suite_parse_json(path, buf, len, err)))
                return -1;
        if (!cJSON_IsObject(obj)) {
                cJSON_Delete(obj);
                return sbx_fail(err, 0, "%s: a suite file is a JSON object", path);
        }
        rc = custom_fields(def, obj, path, err);
        cJSON_Delete(obj);
        if (rc == 0 && !(def->name = strdup(path)))
                return sbx_fail_oom(err, "%s", path);
        return rc;
}
