/* A temp directory for the files one test program writes: the group's
 * setup makes it, its teardown removes it. Static definitions, for the
 * one test file that includes it. */
#ifndef SBX_UNIT_TMPDIR_H
#define SBX_UNIT_TMPDIR_H

#include <stdio.h>
#include <stdlib.h>

static char unit_tmpdir[] = "/tmp/sbx-unit.XXXXXX";

/* dir/name with text in it; the path is malloc'd. */
static char *unit_write_tmp(const char *name, const char *text)
{
        char *path;
        FILE *fp;

        assert_true(asprintf(&path, "%s/%s", unit_tmpdir, name) > 0);
        fp = fopen(path, "w");
        assert_non_null(fp);
        fputs(text, fp);
        fclose(fp);
        return path;
}

static int unit_tmpdir_setup(void **state)
{
        return mkdtemp(unit_tmpdir) ? 0 : -1;
}

static int unit_tmpdir_teardown(void **state)
{
        char cmd[128];

        snprintf(cmd, sizeof(cmd), "rm -rf %s", unit_tmpdir);
        return system(cmd);
}

#endif
