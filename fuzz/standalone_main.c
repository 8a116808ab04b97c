/* A main() for the fuzz targets built without libFuzzer: feeds each file
 * named on the command line (or each file in a named directory) to
 * LLVMFuzzerTestOneInput once. make check replays fuzz/corpus/<target>/
 * through these, under ASan/UBSan, so every input that once crashed a
 * parser stays a regression test without clang. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REPLAY_MAX_INPUT_BYTES (16 << 20)

static void free_bufp(uint8_t **p) { free(*p); }
static void close_filep(FILE **f) { if (*f) fclose(*f); }
static void close_dirp(DIR **d) { if (*d) closedir(*d); }

static int replay_file(const char *path)
{
        __attribute__((cleanup(close_filep))) FILE *f = fopen(path, "rb");
        __attribute__((cleanup(free_bufp))) uint8_t *buf = NULL;
        size_t len = 0;

        if (!f) {
                fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
                return -1;
        }
        buf = malloc(REPLAY_MAX_INPUT_BYTES);
        if (!buf) {
                fprintf(stderr, "replay: %s: out of memory\n", path);
                return -1;
        }
        len = fread(buf, 1, REPLAY_MAX_INPUT_BYTES, f);
        if (ferror(f)) {
                fprintf(stderr, "replay: %s: read error\n", path);
                return -1;
        }
        if (!feof(f)) {
                fprintf(stderr, "replay: %s: larger than %d bytes\n", path,
                        REPLAY_MAX_INPUT_BYTES);
                return -1;
        }
        /* An exact-size copy, so ASan sees reads past the input's end. */
        uint8_t *exact = malloc(len ? len : 1);
        if (!exact) {
                fprintf(stderr, "replay: %s: out of memory\n", path);
                return -1;
        }
        memcpy(exact, buf, len);
        LLVMFuzzerTestOneInput(exact, len);
        free(exact);
        return 0;
}

static int replay_dir(const char *path, int *count)
{
        __attribute__((cleanup(close_dirp))) DIR *d = opendir(path);
        struct dirent *e;
        char child[4096];

        if (!d) {
                fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
                return -1;
        }
        while ((errno = 0, e = readdir(d))) {
                if (e->d_name[0] == '.')
                        continue;
                if (snprintf(child, sizeof(child), "%s/%s", path, e->d_name) >=
                    (int)sizeof(child)) {
                        fprintf(stderr, "replay: %s/%s: path too long\n", path, e->d_name);
                        return -1;
                }
                if (replay_file(child) < 0)
                        return -1;
                (*count)++;
        }
        if (errno) {
                fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
                return -1;
        }
        return 0;
}

int main(int argc, char **argv)
{
        int count = 0;
        struct stat st;

        for (int i = 1; i < argc; i++) {
                if (stat(argv[i], &st) < 0) {
                        fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
                        return 1;
                }
                if (S_ISDIR(st.st_mode) ? replay_dir(argv[i], &count) < 0
                                        : (replay_file(argv[i]) < 0 || (count++, 0)))
                        return 1;
        }
        if (count == 0) {
                fprintf(stderr, "replay: %s: no inputs given\n", argv[0]);
                return 1;
        }
        printf("replay: %s: %d inputs, no crash\n", argv[0], count);
        return 0;
}
