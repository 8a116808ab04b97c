/* SHA-256 (FIPS 180-4) of a file, for the summary's record of its inputs:
 * a checksum anyone can compare with sha256sum, not a security boundary. */
#ifndef SBX_SHA256_H
#define SBX_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define SHA256_HEX_LEN 64

struct sha256 {
        uint32_t h[8];
        uint8_t block[64];
        size_t used;            /* bytes in block */
        uint64_t total;         /* bytes hashed */
};

void sha256_init(struct sha256 *c);
void sha256_update(struct sha256 *c, const void *data, size_t len);
/* Writes 64 hex digits and a NUL. */
void sha256_hex(struct sha256 *c, char out[SHA256_HEX_LEN + 1]);
/* One buffer's digest, in hex. */
void sha256_buf_hex(const void *data, size_t len, char out[SHA256_HEX_LEN + 1]);
/* The file's bytes as stored (a .gz is hashed compressed, as sha256sum does). */
int sha256_file(const char *path, char out[SHA256_HEX_LEN + 1], struct sbx_err *err);

#endif
