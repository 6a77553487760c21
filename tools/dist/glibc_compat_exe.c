/*
 * Release executables (tools/dist) run on glibc >= 2.31: the start-up code (Scrt1.o) of glibc
 * 2.34+ calls __libc_start_main@GLIBC_2.34 with init = NULL, leaving the program's constructors
 * to libc. This object defines __libc_start_main (hidden), so Scrt1.o's call lands here, and
 * calls __libc_start_main@GLIBC_2.2.5, which every glibc has, with an init function that runs the
 * executable's .init_array the way older start-up code (__libc_csu_init) did: glibc < 2.34 runs
 * none of it by itself; glibc >= 2.34 calls a non-NULL init instead of running them itself, so
 * they run exactly once either way. The dynamic linker runs .preinit_array, and its exit handler
 * the destructors (.fini_array), on every version. (_init of crti.o is skipped: it only calls
 * __gmon_start__, for gprof builds.)
 */
#include <stddef.h>

#define EXPORT_HIDDEN __attribute__((visibility("hidden")))

typedef int (*vkl_main_fn)(int, char **, char **);
typedef void (*vkl_init_fn)(int, char **, char **);

extern int vkl_old_libc_start_main(vkl_main_fn main_fn, int argc, char **argv, vkl_init_fn init, void (*fini)(void),
                                   void (*rtld_fini)(void), void *stack_end);
__asm__(".symver vkl_old_libc_start_main, __libc_start_main@GLIBC_2.2.5");

/* Defined by the linker for every executable. */
extern vkl_init_fn __init_array_start[] __attribute__((visibility("hidden")));
extern vkl_init_fn __init_array_end[] __attribute__((visibility("hidden")));

static void vkl_run_init_array(int argc, char **argv, char **envp) {
    for (size_t i = 0; i < (size_t)(__init_array_end - __init_array_start); i++)
        __init_array_start[i](argc, argv, envp);
}

EXPORT_HIDDEN int __libc_start_main(vkl_main_fn main_fn, int argc, char **argv, vkl_init_fn init, void (*fini)(void),
                                    void (*rtld_fini)(void), void *stack_end);
EXPORT_HIDDEN int __libc_start_main(vkl_main_fn main_fn, int argc, char **argv, vkl_init_fn init, void (*fini)(void),
                                    void (*rtld_fini)(void), void *stack_end) {
    return vkl_old_libc_start_main(main_fn, argc, argv, init != NULL ? init : vkl_run_init_array, fini, rtld_fini,
                                   stack_end);
}
