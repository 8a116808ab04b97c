/* See fuzz_input.h. Failures here abort: they are the harness's own bugs
 * or the host's limits, never a finding about the code under test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_input.h"

char *fuzz_strndup(const uint8_t *data, size_t size)
{
        char *s = malloc(size + 1);

        if (!s)
                abort();
        memcpy(s, data, size);
        s[size] = '\0';
        return s;
}

int fuzz_memfd(const uint8_t *data, size_t size, char *path, size_t pathlen)
{
        int fd = memfd_create("sbx-fuzz", MFD_CLOEXEC);
        size_t done = 0;

        if (fd < 0)
                abort();
        while (done < size) {
                ssize_t n = write(fd, data + done, size - done);
                if (n <= 0)
                        abort();
                done += (size_t)n;
        }
        snprintf(path, pathlen, "/proc/self/fd/%d", fd);
        return fd;
}

size_t fuzz_split(const uint8_t *data, size_t size, const uint8_t **rest,
                  size_t *rest_len)
{
        const size_t seplen = strlen(FUZZ_SEP);
        const uint8_t *sep = size >= seplen ? memmem(data, size, FUZZ_SEP, seplen) : NULL;

        if (!sep) {
                *rest = data + size;
                *rest_len = 0;
                return size;
        }
        *rest = sep + seplen;
        *rest_len = size - (size_t)(sep - data) - seplen;
        return (size_t)(sep - data);
}
