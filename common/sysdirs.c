#include <stddef.h>

#include "sysdirs.h"

const char *const sbx_system_dirs[] = {
        "/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
        NULL,
};
