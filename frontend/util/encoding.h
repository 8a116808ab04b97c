/* Valid UTF-8 for the results file: samples and program output may hold
 * any bytes, JSON readers (Python's json, jq) refuse invalid UTF-8. */
#ifndef SBX_UTF8_H
#define SBX_UTF8_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/* Length of the valid UTF-8 sequence at p (at most n bytes), or 0 when the
 * bytes there are not one (overlong, surrogate, past U+10FFFF, cut short). */
size_t utf8_seq_len(const unsigned char *p, size_t n);
/* A malloc'd copy of s[0..n) with each invalid byte replaced by U+FFFD;
 * *replaced counts them. NULL when out of memory. */
char *utf8_repair(const char *s, size_t n, size_t *replaced);
/* Repairs every string and key in the tree in place; returns the number of
 * bytes replaced, or (size_t)-1 when out of memory. */
size_t utf8_repair_json(cJSON *node);

#endif
