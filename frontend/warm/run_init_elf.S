/* sbx-run-init, the warm runs' and the cold bwrap runs' pid 1
 * (frontend/warm/zygote/init/), and the warm candidate's confinement
 * (frontend/warm/zygote/candidate/), as bytes in sbx-run: run_init_fd.c
 * makes them sealed memfds (warm_init.c hands them to each zygote,
 * sandbox/tier_tool.c sbx-run-init to the bwrap tier), which reach inside
 * every tier's sandbox where no installed path might. */
        .section .rodata
        .balign 16
        .globl sbx_run_init_elf
        .type sbx_run_init_elf, @object
sbx_run_init_elf:
        .incbin RUN_INIT_PATH
        .globl sbx_run_init_elf_end
sbx_run_init_elf_end:
        .balign 16
        .globl sbx_candidate_code
        .type sbx_candidate_code, @object
sbx_candidate_code:
        .incbin CANDIDATE_PATH
        .globl sbx_candidate_code_end
sbx_candidate_code_end:
        .section .note.GNU-stack, "", @progbits
