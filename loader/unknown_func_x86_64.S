/*
 * Generic trampolines for unknown commands (see unknown_func.c). Each one rewrites nothing but the
 * first argument (%rdi) and tail-jumps, so every signature the System V AMD64 ABI allows works.
 * The offsets below are checked against the C structures by _Static_assert in unknown_layout.c.
 */
#if defined(__x86_64__)

#define TRAMP_NEXT 8        /* offsetof(struct vkl_physdev_tramp, next) */
#define TRAMP_INSTANCE 24   /* offsetof(struct vkl_physdev_tramp, instance) */
#define INST_UNKNOWN 8      /* offsetof(struct vkl_instance, unknown_physdev_chain) */
#define TERM_HANDLE 16      /* offsetof(struct vkl_physdev_term, handle) */
#define TERM_UNKNOWN 24     /* offsetof(struct vkl_physdev_term, unknown) */
#define DEV_UNKNOWN (-2000) /* offsetof(unknown) - offsetof(gen) in struct vkl_device_dispatch */

    .altmacro
    .text

    /* Application side: unwrap the trampoline physical device, jump to the chain's slot n. */
    .macro PD_TRAMP n
    .globl vkl_unknown_pd_tramp_\n
    .hidden vkl_unknown_pd_tramp_\n
    .type vkl_unknown_pd_tramp_\n, @function
vkl_unknown_pd_tramp_\n:
    movq TRAMP_INSTANCE(%rdi), %rax
    movq TRAMP_NEXT(%rdi), %rdi
    jmp *(INST_UNKNOWN + 8 * \n)(%rax)
    .size vkl_unknown_pd_tramp_\n, . - vkl_unknown_pd_tramp_\n
    .endm

    /* Terminator side: unwrap to the driver's handle, jump to the driver's function for slot n. */
    .macro PD_TERM n
    .globl vkl_unknown_pd_term_\n
    .hidden vkl_unknown_pd_term_\n
    .type vkl_unknown_pd_term_\n, @function
vkl_unknown_pd_term_\n:
    movq TERM_UNKNOWN(%rdi), %rax
    movq TERM_HANDLE(%rdi), %rdi
    jmp *(8 * \n)(%rax)
    .size vkl_unknown_pd_term_\n, . - vkl_unknown_pd_term_\n
    .endm

    /* Device commands: the handle is the driver's own; only the table lookup is needed. */
    .macro DEV_TRAMP n
    .globl vkl_unknown_dev_tramp_\n
    .hidden vkl_unknown_dev_tramp_\n
    .type vkl_unknown_dev_tramp_\n, @function
vkl_unknown_dev_tramp_\n:
    movq (%rdi), %rax
    jmp *(DEV_UNKNOWN + 8 * \n)(%rax)
    .size vkl_unknown_dev_tramp_\n, . - vkl_unknown_dev_tramp_\n
    .endm

    .set i, 0
    .rept 250
    PD_TRAMP %i
    PD_TERM %i
    DEV_TRAMP %i
    .set i, i + 1
    .endr

    .macro TABLE_ENTRY prefix, n
    .quad \prefix\n
    .endm

    .section .data.rel.ro, "aw"
    .balign 8
    .globl vkl_unknown_physdev_tramps
    .hidden vkl_unknown_physdev_tramps
vkl_unknown_physdev_tramps:
    .set i, 0
    .rept 250
    TABLE_ENTRY vkl_unknown_pd_tramp_, %i
    .set i, i + 1
    .endr

    .globl vkl_unknown_physdev_terms
    .hidden vkl_unknown_physdev_terms
vkl_unknown_physdev_terms:
    .set i, 0
    .rept 250
    TABLE_ENTRY vkl_unknown_pd_term_, %i
    .set i, i + 1
    .endr

    .globl vkl_unknown_device_tramps
    .hidden vkl_unknown_device_tramps
vkl_unknown_device_tramps:
    .set i, 0
    .rept 250
    TABLE_ENTRY vkl_unknown_dev_tramp_, %i
    .set i, i + 1
    .endr

    .section .note.GNU-stack, "", @progbits
#else
#error "unknown-function trampolines exist for x86_64 only; add this architecture's file"
#endif
