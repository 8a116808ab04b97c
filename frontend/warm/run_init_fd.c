/* sbx-run-init and the candidate's confinement as sealed memfds
 * (run_init_fd.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cleanup.h"
#include "run_init_fd.h"
#include "util.h"

#define MEMFD_EXEC      0x0010U         /* MFD_EXEC, Linux 6.3 */

/* frontend/warm/run_init_elf.S */
extern const unsigned char sbx_run_init_elf[], sbx_run_init_elf_end[];
extern const unsigned char sbx_candidate_code[], sbx_candidate_code_end[];

static int sealed_memfd(const char *name, const unsigned char *start, const unsigned char *end)
{
        /* Executable by request where the kernel knows to ask (6.3: else
         * vm.memfd_noexec may make it not); EINVAL before. */
        auto_fd fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING | MEMFD_EXEC);

        if (fd < 0 && errno == EINVAL)
                fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
        if (fd < 0 || sbx_write_all(fd, start, (size_t)(end - start)) < 0 ||
            fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
                return -1;
        return take_fd(&fd);
}

int run_init_fd(void)
{
        return sealed_memfd("sbx-run-init", sbx_run_init_elf, sbx_run_init_elf_end);
}

int run_init_write(int fd)
{
        return sbx_write_all(fd, sbx_run_init_elf, (size_t)(sbx_run_init_elf_end - sbx_run_init_elf));
}

int run_init_read_only(int fd)
{
        char path[64];
        int ro;

        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
        ro = open(path, O_RDONLY | O_CLOEXEC);
        close(fd);
        return ro;
}

int candidate_code_fd(void)
{
        return sealed_memfd("sbx-candidate", sbx_candidate_code, sbx_candidate_code_end);
}
