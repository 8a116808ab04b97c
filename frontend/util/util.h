/* Small helpers the whole frontend shares, one copy each (as bubblewrap's
 * utils.c): whole writes, directory trees, hashing, the string vector,
 * JSON fields, the clock. No policy here, and no output. */
#ifndef SBX_UTIL_H
#define SBX_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cleanup.h"

struct cJSON;

/* Writes all len bytes, again after EINTR and short writes; 0, or -1 with
 * errno set (EIO when write() returns 0). */
int sbx_write_all(int fd, const void *data, size_t len);
/* Copies len bytes from in (from its offset) to out: sendfile, else read
 * and write. A file that ends first ends the copy. 0, or -1 with errno. */
int sbx_copy_fd(int out, int in, off_t len);
/* The file behind fd opened again through /proc/self/fd (flags, and
 * O_CLOEXEC): an open file description of its own, at offset 0, which no
 * other holder of fd moves. The fd, or -1 with errno. */
int sbx_reopen_fd(int fd, int flags);
/* mkdir -p with mode 0700 for each missing component; 0, or -1 with errno. */
int sbx_mkdir_p(const char *path);
/* Removes path and everything below it, links not followed; 0 (also when
 * path is already gone), or -1 with errno. */
int sbx_rm_tree(const char *path);

/* CLOCK_MONOTONIC in milliseconds and nanoseconds (SBX_TRACE passes the
 * latter to the helper, which reads the same clock). */
int64_t sbx_now_ms(void);
int64_t sbx_now_ns(void);

/* 64-bit FNV-1a: start from SBX_FNV1A_INIT and feed bytes in any pieces. */
#define SBX_FNV1A_INIT 0xcbf29ce484222325ULL
uint64_t sbx_fnv1a(uint64_t h, const void *data, size_t len);

/* qsort comparator for an array of C strings. */
int sbx_cmp_str(const void *a, const void *b);

/* Growable NULL-terminated vector of owned strings; { 0 } is empty. */
struct strvec {
        char **items;
        size_t len, cap;
};
int strvec_push(struct strvec *v, const char *s);
int strvec_pushf(struct strvec *v, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
int strvec_extend(struct strvec *v, const char *const *items);
void strvec_free(struct strvec *v);
/* Frees a NULL-terminated array of strings and the array (NULL: nothing). */
void sbx_strv_free(char **v);
/* The items as the read-only list the library's options take. */
static inline const char *const *strvec_list(const struct strvec *v)
{
        return (const char *const *)v->items;
}

/* obj[key] when it is a string / a number, else dflt (also when obj is
 * NULL or not an object). */
const char *json_get_str(const struct cJSON *obj, const char *key, const char *dflt);
double json_get_num(const struct cJSON *obj, const char *key, double dflt);
/* A copy of obj[key] in *out: 1; 0 when key is absent (*out untouched);
 * -1 with errno EINVAL when it is not a string, ENOMEM when out of memory. */
int json_dup_str(const struct cJSON *obj, const char *key, char **out);
/* Past the JSON string that starts at p (its opening quote) and ends
 * before end: the byte after its closing quote, or NULL when it does not
 * end there. */
const char *json_skip_string(const char *p, const char *end);

#endif
