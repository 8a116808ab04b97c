/* The encodings of bytes in text. Valid UTF-8 for the results file:
 * samples and program output may hold any bytes, JSON readers (Python's
 * json, jq) refuse invalid UTF-8. Base64: /run_code's files and LiveCodeBench's
 * compressed tests. */
#ifndef SBX_ENCODING_H
#define SBX_ENCODING_H

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

/* Base64 (RFC 4648's alphabet, '=' padding) in[0..len) into out, which has
 * room for len / 4 * 3 + 3 bytes. Strict: complete groups of four, '='
 * only at the end, the padding's dropped bits zero (the one encoding of
 * the bytes, as Python's b64decode(validate=True) takes it); with
 * skip_space, space, tab, CR and LF are skipped first. 0 with *out_len,
 * or -1 when in is not that. */
int base64_decode(const char *in, size_t len, bool skip_space, unsigned char *out,
                  size_t *out_len);
/* in[0..len) as base64, malloc'd and NUL-terminated; NULL: out of memory. */
char *base64_encode(const unsigned char *in, size_t len);

#endif
