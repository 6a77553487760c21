/*
 * The executable half of glibc_compat.c: crt1.o of glibc >= 2.34 calls __libc_start_main@GLIBC_2.34
 * with no init function, because that version runs the program's constructors itself. The old
 * version (GLIBC_2.2.5, the only one glibc 2.31 has) runs only the init function it is given, so
 * the wrapper gives it one that runs the program's _init and .init_array, as glibc < 2.34's
 * __libc_csu_init did. Newer glibc, given an init function, calls it instead of its own (the path
 * it keeps for old binaries), so the constructors run exactly once on either.
 */
#include <stddef.h>

typedef int (*vkl_main_fn)(int, char **, char **);
typedef void (*vkl_init_fn)(int, char **, char **);

int vkl_old_libc_start_main(vkl_main_fn main, int argc, char **argv, vkl_init_fn init, void (*fini)(void),
                            void (*rtld_fini)(void), void *stack_end);
__asm__(".symver vkl_old_libc_start_main,__libc_start_main@GLIBC_2.2.5");

extern vkl_init_fn __init_array_start[] __attribute__((visibility("hidden")));
extern vkl_init_fn __init_array_end[] __attribute__((visibility("hidden")));
extern void _init(void);

static void vkl_run_init(int argc, char **argv, char **envp) {
    _init();
    size_t n = (size_t)(__init_array_end - __init_array_start);
    for (size_t i = 0; i < n; i++) __init_array_start[i](argc, argv, envp);
}

__attribute__((visibility("hidden"))) int __wrap___libc_start_main(vkl_main_fn main, int argc, char **argv,
                                                                    vkl_init_fn init, void (*fini)(void),
                                                                    void (*rtld_fini)(void), void *stack_end);
__attribute__((visibility("hidden"))) int __wrap___libc_start_main(vkl_main_fn main, int argc, char **argv,
                                                                    vkl_init_fn init, void (*fini)(void),
                                                                    void (*rtld_fini)(void), void *stack_end) {
    return vkl_old_libc_start_main(main, argc, argv, init != NULL ? init : vkl_run_init, fini, rtld_fini, stack_end);
}
