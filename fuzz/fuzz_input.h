/* Helpers shared by the fuzz targets: turning the fuzzer's bytes into the
 * shapes the parsers take (a NUL-terminated string, a file path, several
 * parts). No target may write to disk: files are memfds, named through
 * /proc/self/fd. */
#ifndef SBX_FUZZ_INPUT_H
#define SBX_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

/* A malloc'd NUL-terminated copy of data[0..size). */
char *fuzz_strndup(const uint8_t *data, size_t size);

/* A memfd holding data; writes its /proc/self/fd path to path. Returns the
 * fd (close it when done), or -1. */
int fuzz_memfd(const uint8_t *data, size_t size, char *path, size_t pathlen);

/* Splits data at the first "\n%%\n" separator (FUZZ_SEP): part one is
 * before it, part two after; without one, part two is empty. Returns the
 * number of bytes of part one; *rest and *rest_len give part two. */
#define FUZZ_SEP "\n%%\n"
size_t fuzz_split(const uint8_t *data, size_t size, const uint8_t **rest,
                  size_t *rest_len);

#endif
