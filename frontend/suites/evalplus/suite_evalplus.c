/* HumanEval+ and MBPP+ in evalplus's native form: the inputs as the file
 * spells them (1.0 stays a float: cJSON would print it as 1), the driver's
 * inputs file, its records, and base_status / plus_status as evalplus's
 * untrusted_check gives them (fast check: the first failing input decides). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "driver.h"
#include "evalplus.h"
#include "results.h"
#include "sha256.h"
#include "strbuf.h"
#include "suite.h"
#include "suite_ops.h"
#include "util.h"

const char *const evalplus_phase_names[EVALPLUS_PHASES] = { "base", "plus" };
static const char *const input_keys[EVALPLUS_PHASES] = { "base_input", "plus_input" };

/* ---- raw JSON values of a line ---- */

static const char *skip_ws(const char *p, const char *end)
{
        while (p < end && strchr(" \t\r\n", *p))
                p++;
        return p;
}

/* The end of the JSON value at p (already valid: cJSON parsed the line). */
static const char *skip_value(const char *p, const char *end)
{
        int depth = 0;

        do {
                if (p >= end)
                        return NULL;
                if (*p == '"') {
                        if (!(p = json_skip_string(p, end)))
                                return NULL;
                        continue;
                }
                if (*p == '[' || *p == '{')
                        depth++;
                else if (*p == ']' || *p == '}')
                        depth--;
                p++;
                if (depth == 0)
                        while (p < end && !strchr(",]} \t\r\n", *p))
                                p++;
        } while (depth > 0);
        return p;
}

/* The text of top-level key's value in the object on [p, end), malloc'd. */
static char *raw_value(const char *p, const char *end, const char *key)
{
        size_t klen = strlen(key);

        p = skip_ws(p, end);
        if (p >= end || *p++ != '{')
                return NULL;
        while ((p = skip_ws(p, end)) < end && *p == '"') {
                const char *k = p, *kend = json_skip_string(p, end);
                if (!kend || (p = skip_ws(kend, end)) >= end || *p++ != ':')
                        return NULL;
                const char *v = skip_ws(p, end), *vend = skip_value(v, end);
                if (!vend)
                        return NULL;
                if ((size_t)(kend - k) == klen + 2 && !memcmp(k + 1, key, klen))
                        return strndup(v, (size_t)(vend - v));
                p = skip_ws(vend, end);
                if (p < end && *p == ',')
                        p++;
        }
        return NULL;
}

static int attach_raw(struct suite *s, struct evalplus_suite *e, struct sbx_err *err)
{
        auto_free char *buf = NULL;
        size_t len, ti = 0;
        long line = 0;

        if (suite_read_file(s->problems_path, &buf, &len, err) < 0)
                return -1;
        sha256_buf_hex(buf, len, e->sha256);
        for (const char *p = buf, *end = buf + len; p < end && ti < s->n_tasks; line++) {
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                const char *le = nl ? nl : end;
                if (line + 1 == s->tasks[ti].line) {
                        for (int ph = 0; ph < EVALPLUS_PHASES; ph++) {
                                e->raw[ph][ti] = raw_value(p, le, input_keys[ph]);
                                if (!e->raw[ph][ti])
                                        return sbx_fail(err, 0, "%s:%ld: cannot read \"%s\"",
                                                        s->problems_path, line + 1, input_keys[ph]);
                                e->args[ph][ti] = cJSON_Parse(e->raw[ph][ti]);
                        }
                        ti++;
                }
                p = le + 1;
        }
        if (ti != s->n_tasks)
                return sbx_fail(err, 0, "%s: evalplus files are JSONL, one task a line",
                                s->problems_path);
        return 0;
}

static int check_suite(const struct suite *s, enum evalplus_dataset ds, struct sbx_err *err)
{
        const char *want = ds == EVALPLUS_MBPP ? "mbppplus" : "humanevalplus";
        const char *what = ds == EVALPLUS_MBPP ? "MBPP+" : "HumanEval+";

        if (!strcmp(s->def.name, want))
                return 0;
        return sbx_fail(err, 0, "%s is evalplus's %s file (plus_input, no expected outputs): "
                        "--suite %s would ignore its plus inputs; run --suite %s",
                        s->problems_path, what, s->def.name, want);
}

bool evalplus_is_mbpp_originfmt(const cJSON *problem)
{
        return cJSON_IsString(cJSON_GetObjectItemCaseSensitive(problem, "test")) &&
               cJSON_IsString(cJSON_GetObjectItemCaseSensitive(problem, "code")) &&
               cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(problem, "test_list"));
}

/* MbppPlus-OriginFmt is MBPP's form plus "test" (the plus tests as
 * asserts): --suite mbpp would score it on its three base asserts. */
static int check_originfmt(const struct suite *s, struct sbx_err *err)
{
        bool origin = s->n_tasks && evalplus_is_mbpp_originfmt(s->tasks[0].problem);
        const struct suite_row *row = s->def.row;

        /* the file is mbppplus's own, or a custom suite's template's to read */
        if (!origin || row->evalplus_only || row->custom)
                return 0;
        return sbx_fail(err, 0, "%s is evalplus's MbppPlus-OriginFmt file (plus tests in "
                        "\"test\"): --suite %s would ignore them; run --suite mbppplus",
                        s->problems_path, s->def.name);
}

int evalplus_attach(struct suite *s, struct sbx_err *err)
{
        struct evalplus_suite *e;
        bool native = s->n_tasks && cJSON_GetObjectItemCaseSensitive(s->tasks[0].problem,
                                                                      "plus_input");

        if (!native)
                return check_originfmt(s, err);
        enum evalplus_dataset ds = strncmp(s->tasks[0].task_id, "Mbpp/", 5)
                ? EVALPLUS_HUMANEVAL : EVALPLUS_MBPP;
        if (check_suite(s, ds, err) < 0)
                return -1;
        if (!(e = s->evalplus = calloc(1, sizeof(*e))))
                return sbx_fail_oom(err, "evalplus");
        e->dataset = ds;
        e->truth = calloc(s->n_tasks + 1, sizeof(cJSON *));
        for (int ph = 0; ph < EVALPLUS_PHASES; ph++) {
                e->raw[ph] = calloc(s->n_tasks + 1, sizeof(char *));
                e->args[ph] = calloc(s->n_tasks + 1, sizeof(cJSON *));
        }
        if (!e->truth || !e->raw[0] || !e->raw[1] || !e->args[0] || !e->args[1])
                return sbx_fail_oom(err, "evalplus");
        for (size_t i = 0; i < s->n_tasks; i++) {
                const cJSON *pb = s->tasks[i].problem;
                static const char *const need[] = { "prompt", "entry_point",
                                                    "canonical_solution", NULL };
                for (const char *const *f = need; *f; f++)
                        if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(pb, *f)))
                                return sbx_fail(err, 0, "%s:%ld: missing string \"%s\"",
                                                s->problems_path, s->tasks[i].line, *f);
        }
        return attach_raw(s, e, err);
}

void evalplus_free(struct evalplus_suite *e)
{
        if (!e)
                return;
        for (int ph = 0; ph < EVALPLUS_PHASES; ph++) {
                for (size_t i = 0; e->raw[ph] && e->raw[ph][i]; i++)
                        free(e->raw[ph][i]);
                for (size_t i = 0; e->args[ph] && e->truth && e->args[ph][i]; i++)
                        cJSON_Delete(e->args[ph][i]);
                free(e->raw[ph]);
                free(e->args[ph]);
        }
        for (size_t i = 0; e->truth && e->truth[i]; i++)
                cJSON_Delete(e->truth[i]);
        free(e->truth);
        free(e);
}

/* evalplus: the sample's "solution", or prompt + "completion"; the
 * reference is prompt + canonical_solution. */
char *evalplus_build_program(const struct suite *s, const struct suite_sample *smp,
                             struct sbx_err *err)
{
        const cJSON *pb = s->tasks[smp->task].problem;
        struct strbuf b = { 0 };
        char *text;

        if (!smp->is_solution)
                strbuf_add(&b, json_get_str(pb, "prompt", ""));
        strbuf_add(&b, smp->code);
        if (!(text = strbuf_done(&b)))
                sbx_fail_oom(err, "building program");
        return text;
}

/* max(4 s, 4 x the reference's time) per input; the phase
 * min(60, sum) + 1 (evalplus's untrusted_check). */
static void phase_limits(const cJSON *times, cJSON *limits, double *phase_s)
{
        const cJSON *t;
        double sum = 0;

        cJSON_ArrayForEach(t, times) {
                double lim = EVALPLUS_GT_TIME_FACTOR * t->valuedouble;
                if (lim < EVALPLUS_MIN_TIME_LIMIT_S)
                        lim = EVALPLUS_MIN_TIME_LIMIT_S;
                sum += lim;
                cJSON_AddItemToArray(limits, cJSON_CreateNumber(lim));
        }
        *phase_s = (sum < EVALPLUS_PHASE_CAP_S ? sum : EVALPLUS_PHASE_CAP_S) +
                   EVALPLUS_PHASE_SLACK_S;
}

static int mbpp_number(const struct suite *s, size_t task)
{
        const char *id = s->tasks[task].task_id;

        return s->evalplus->dataset == EVALPLUS_MBPP ? atoi(id + 5) : -1;
}

static void add_json_string(struct strbuf *b, const char *text)
{
        cJSON *tmp = cJSON_CreateString(text);
        char *j = tmp ? cJSON_PrintUnformatted(tmp) : NULL;

        cJSON_Delete(tmp);
        if (!j)
                b->oom = true;
        else
                strbuf_add(b, j);
        free(j);
}

static bool add_phase(struct strbuf *b, const struct evalplus_suite *e, size_t task,
                      int ph, bool limits, double *phase_s)
{
        const cJSON *times = cJSON_GetObjectItemCaseSensitive(e->truth[task],
                ph ? "plus_time" : "base_time");
        char num[64];

        strbuf_add(b, ph ? ",{\"name\":\"plus\",\"inputs\":" : "{\"name\":\"base\",\"inputs\":");
        strbuf_add(b, e->raw[ph][task]);
        *phase_s = EVALPLUS_TRUTH_TIMEOUT_S;
        if (limits) {
                cJSON *l = cJSON_CreateArray();
                char *lt;
                if (!l)
                        return false;
                phase_limits(times, l, phase_s);
                lt = cJSON_PrintUnformatted(l);
                cJSON_Delete(l);
                if (!lt)
                        return false;
                strbuf_add(b, ",\"limits\":");
                strbuf_add(b, lt);
                free(lt);
                snprintf(num, sizeof(num), ",\"deadline\":%.3f", *phase_s);
                strbuf_add(b, num);
        }
        strbuf_add(b, "}");
        return true;
}

static char *inputs_text(const struct suite *s, size_t task, bool limits, double *wall_s)
{
        const struct evalplus_suite *e = s->evalplus;
        const cJSON *pb = s->tasks[task].problem;
        const char *entry = json_get_str(pb, "entry_point", "");
        struct strbuf b = { 0 };
        char num[64];
        double phase_s;

        *wall_s = EVALPLUS_START_SLACK_S;
        strbuf_add(&b, "{\"entry_point\":");
        add_json_string(&b, entry);
        snprintf(num, sizeof(num), ",\"mbpp_deserialize\":%d", mbpp_number(s, task));
        strbuf_add(&b, e->dataset == EVALPLUS_MBPP ? num : ",\"mbpp_deserialize\":null");
        if (evalplus_oracle_for(e->dataset, entry) == EP_ORACLE_NOT_NONE)
                strbuf_add(&b, ",\"not_none\":true");
        strbuf_add(&b, ",\"phases\":[");
        for (int ph = 0; ph < EVALPLUS_PHASES; ph++) {
                if (!add_phase(&b, e, task, ph, limits, &phase_s))
                        b.oom = true;
                *wall_s += phase_s;
                /* the phase's limit counts calls only; sending the values takes
                 * time too (Mbpp/255: 1 GB), given as the calls are */
                if (limits)
                        *wall_s += EVALPLUS_GT_TIME_FACTOR * json_get_num(e->truth[task],
                                ph ? "plus_ser" : "base_ser", 0);
        }
        strbuf_add(&b, "]}");
        return strbuf_done(&b);
}

int evalplus_write_inputs(const struct suite *s, size_t task, bool limits,
                          const char *dir, double *wall_s, struct sbx_err *err)
{
        auto_free char *text = inputs_text(s, task, limits, wall_s);
        auto_free char *path = NULL;
        auto_fd fd = -1;

        if (!text || asprintf(&path, "%s/%s", dir, EVALPLUS_INPUTS_NAME) < 0)
                return sbx_fail_oom(err, "inputs file");
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 || sbx_write_all(fd, text, strlen(text)) < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "%s", path);
        return 0;
}

#define EP_BEGIN "@@SBX-EP-BEGIN "
#define EP_REC "@@SBX-EP "

/* Records are trusted no further than their shape: the candidate shares the
 * driver's process and could forge one, but only a value it could have
 * returned; the expected values never enter the sandbox. */
cJSON *evalplus_parse_stream(const struct run_output *out)
{
        const char *p = out->data, *end = out->data ? out->data + out->len : NULL;
        char prefix[sizeof(EP_REC) + DRIVER_NONCE_HEX + 1];
        cJSON *recs;

        if (!p || out->len < strlen(EP_BEGIN) + DRIVER_NONCE_HEX + 1 ||
            memcmp(p, EP_BEGIN, strlen(EP_BEGIN)) ||
            p[strlen(EP_BEGIN) + DRIVER_NONCE_HEX] != '\n')
                return NULL;
        snprintf(prefix, sizeof(prefix), "%s%.*s ", EP_REC, DRIVER_NONCE_HEX,
                 p + strlen(EP_BEGIN));
        if (!(recs = cJSON_CreateArray()))
                return NULL;
        for (p += strlen(EP_BEGIN) + DRIVER_NONCE_HEX + 1; p < end;) {
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                if (!nl)
                        break;                  /* torn: the run was cut */
                size_t n = strlen(prefix);
                if ((size_t)(nl - p) > n && !memcmp(p, prefix, n)) {
                        cJSON *r = cJSON_ParseWithLength(p + n, (size_t)(nl - p) - n);
                        if (cJSON_IsObject(r))
                                cJSON_AddItemToArray(recs, r);
                        else
                                cJSON_Delete(r);
                }
                p = nl + 1;
        }
        return recs;
}

/* ---- scoring ---- */

/* A phase's records by input index, in one pass over the run's records;
 * special[0] the program's load failure (-1), special[1] the phase limit (-3). */
static const cJSON **index_records(const cJSON *recs, const char *phase, size_t n,
                                   const cJSON *special[2])
{
        const cJSON **at = calloc(n + 1, sizeof(*at));
        const cJSON *r;

        special[0] = special[1] = NULL;
        if (!at)
                return NULL;
        cJSON_ArrayForEach(r, recs) {
                const cJSON *i = cJSON_GetObjectItemCaseSensitive(r, "i");
                if (!cJSON_IsNumber(i) || strcmp(json_get_str(r, "p", ""), phase))
                        continue;
                if (i->valueint >= 0 && (size_t)i->valueint < n && !at[i->valueint])
                        at[i->valueint] = r;
                else if (i->valueint == -1 || i->valueint == -3)
                        special[i->valueint == -3] = special[i->valueint == -3] ?: r;
        }
        return at;
}

/* One phase as untrusted_check with fast_check: the first input that
 * raises, times out or differs fails it; a run that ended before the
 * phase did (killed at the limit, or gone) is "timeout", as evalplus's
 * unknown status is. */
static const char *phase_status(const struct suite *s, size_t task, int ph,
                                const cJSON *recs, int *fail_input, char *why, size_t why_len)
{
        const struct evalplus_suite *e = s->evalplus;
        const char *name = evalplus_phase_names[ph];
        const cJSON *exp = cJSON_GetObjectItemCaseSensitive(e->truth[task], name);
        struct evalplus_judge j = evalplus_judge_for(s, task);
        const cJSON *special[2], *r, *x;
        const cJSON *args = e->args[ph][task] ? e->args[ph][task]->child : NULL;
        auto_free const cJSON **at = index_records(recs, name,
                                                   (size_t)cJSON_GetArraySize(exp), special);
        int i = 0;

        *fail_input = -1;
        if (!at)
                return snprintf(why, why_len, "out of memory"), "fail";
        if (special[0]) {
                snprintf(why, why_len, "%s: %s", name, json_get_str(special[0], "m", ""));
                return "fail";
        }
        cJSON_ArrayForEach(x, exp) {
                char detail[512];
                const char *st;
                *fail_input = i;
                if (!(r = at[i])) {
                        /* evalplus reports the last input done (its progress counter) */
                        *fail_input = i - 1;
                        snprintf(why, why_len, "%s: input %d: %s", name, i,
                                 special[1] ? "the phase's time limit" : "the run ended");
                        return "timeout";
                }
                st = json_get_str(r, "s", "");
                if (strcmp(st, "ok")) {
                        snprintf(why, why_len, "%s: input %d: %s%s", name, i,
                                 strcmp(st, "timeout") ? "" : "time limit",
                                 json_get_str(r, "m", ""));
                        return "fail";
                }
                if (!evalplus_judge_value(&j, cJSON_GetObjectItemCaseSensitive(r, "v"), x,
                                          args, detail, sizeof(detail))) {
                        snprintf(why, why_len, "%s: input %d: %s", name, i, detail);
                        return "fail";
                }
                i++;
                args = args ? args->next : NULL;
        }
        *fail_input = -1;
        return "pass";
}

void evalplus_score(const struct suite *s, size_t task, const struct run_result *r,
                    struct verdict *v)
{
        cJSON *recs = evalplus_parse_stream(&r->out);
        char why[EVALPLUS_PHASES][sizeof(v->result) - 16];
        const char *st[EVALPLUS_PHASES];

        for (int ph = 0; ph < EVALPLUS_PHASES; ph++) {
                v->fail_input[ph] = -1;
                if (!recs) {
                        st[ph] = r->status == RUN_TIMEOUT ? "timeout" : "fail";
                        snprintf(why[ph], sizeof(why[ph]), "the driver did not start (%s)",
                                 r->detail[0] ? r->detail : run_status_name(r->status));
                } else {
                        st[ph] = phase_status(s, task, ph, recs, &v->fail_input[ph],
                                              why[ph], sizeof(why[ph]));
                }
        }
        cJSON_Delete(recs);
        snprintf(v->base_status, sizeof(v->base_status), "%s", st[0]);
        snprintf(v->plus_status, sizeof(v->plus_status), "%s", st[1]);
        int bad = strcmp(st[0], "pass") ? 0 : 1;
        if (!strcmp(st[0], "pass") && !strcmp(st[1], "pass"))
                verdict_set(v, VERDICT_PASSED, NULL);
        else if (!strcmp(st[bad], "timeout"))
                verdict_set(v, VERDICT_TIMED_OUT, NULL);
        else
                verdict_set(v, VERDICT_FAILED, "%s", why[bad]);
}


/* ---- evalplus's eval_results.json ---- */

/* {"task_id", "solution", "base_status", "plus_status", "base_fail_tests",
 * "plus_fail_tests"} for one results line, as evaluate.py writes it. */
static cJSON *eval_entry(const struct suite *s, const cJSON *line, struct sbx_err *err)
{
        const struct suite_sample *smp;
        const cJSON *idx = cJSON_GetObjectItemCaseSensitive(line, "sbx_index");
        cJSON *o = cJSON_CreateObject();
        auto_free char *program = NULL;

        if (!o || !cJSON_IsNumber(idx) || idx->valuedouble < 0 ||
            (size_t)idx->valuedouble >= s->n_samples)
                return cJSON_Delete(o), NULL;
        smp = &s->samples[(size_t)idx->valuedouble];
        if (!(program = evalplus_build_program(s, smp, err)))
                return cJSON_Delete(o), NULL;
        cJSON_AddStringToObject(o, "task_id", s->tasks[smp->task].task_id);
        cJSON_AddStringToObject(o, "solution", program);
        for (int ph = 0; ph < EVALPLUS_PHASES; ph++) {
                char key[32];
                const cJSON *args = s->evalplus->args[ph][smp->task];
                snprintf(key, sizeof(key), "%s_status", evalplus_phase_names[ph]);
                cJSON_AddItemToObject(o, key, cJSON_Duplicate(
                        cJSON_GetObjectItemCaseSensitive(line, key), true));
                snprintf(key, sizeof(key), "%s_fail_input", evalplus_phase_names[ph]);
                const cJSON *fi = cJSON_GetObjectItemCaseSensitive(line, key);
                snprintf(key, sizeof(key), "%s_fail_tests", evalplus_phase_names[ph]);
                cJSON *tests = cJSON_AddArrayToObject(o, key);
                if (cJSON_IsNumber(fi) && fi->valueint >= 0 && args)
                        cJSON_AddItemToArray(tests, cJSON_Duplicate(
                                cJSON_GetArrayItem(args, fi->valueint), true));
        }
        return o;
}

int evalplus_write_results(const struct suite *s, cJSON *const *lines, size_t n,
                           const cJSON *summary, const char *path, struct sbx_err *err)
{
        cJSON *root = cJSON_CreateObject(), *eval = cJSON_AddObjectToObject(root, "eval");
        const cJSON *ep = cJSON_GetObjectItemCaseSensitive(summary, "evalplus");
        auto_free char *text = NULL;
        char date[32];
        time_t now = time(NULL);
        FILE *fp;

        strftime(date, sizeof(date), "%Y-%m-%d %H:%M", localtime(&now));
        cJSON_AddStringToObject(root, "date", date);
        cJSON_AddStringToObject(root, "hash", s->evalplus->sha256);
        for (size_t i = 0; eval && i < n; i++) {
                if (!lines[i])
                        continue;
                cJSON *e = eval_entry(s, lines[i], err);
                const char *tid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "task_id"));
                cJSON *list = tid ? cJSON_GetObjectItemCaseSensitive(eval, tid) : NULL;
                if (e && !list)
                        list = cJSON_AddArrayToObject(eval, tid);
                if (!e || !list) {
                        cJSON_Delete(e);
                        cJSON_Delete(root);
                        return sbx_fail_oom(err, "%s", path);
                }
                cJSON_AddItemToArray(list, e);
        }
        cJSON_AddItemToObject(root, "pass_at_k", cJSON_Duplicate(ep, true));
        text = cJSON_PrintUnformatted(root);
        cJSON_Delete(root);
        if (!text)
                return sbx_fail_oom(err, "%s", path);
        if (!(fp = fopen(path, "w")))
                return sbx_fail(err, errno, "%s", path);
        int ok = fputs(text, fp) >= 0;
        if (fclose(fp) != 0 || !ok)
                return sbx_fail(err, errno, "%s", path);
        return 0;
}
