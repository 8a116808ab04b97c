/* sbx-run-init, the warm runs' pid 1 (frontend/zygote/init/), as bytes in
 * sbx-run: warm.c hands them to each zygote in a sealed memfd, which
 * reaches inside every tier's sandbox where no installed path might. */
        .section .rodata
        .balign 16
        .globl sbx_run_init_elf
        .type sbx_run_init_elf, @object
sbx_run_init_elf:
        .incbin RUN_INIT_PATH
        .globl sbx_run_init_elf_end
sbx_run_init_elf_end:
        .section .note.GNU-stack, "", @progbits
