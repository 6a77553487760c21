/* Compile-time proof that the offsets unknown_func_x86_64.S uses match the C structures. */
#include <stddef.h>

#include "loader/internal/instance.h"

_Static_assert(offsetof(struct vkl_physdev_tramp, next) == 8, "TRAMP_NEXT");
_Static_assert(offsetof(struct vkl_physdev_tramp, instance) == 24, "TRAMP_INSTANCE");
_Static_assert(offsetof(struct vkl_instance, unknown_physdev_chain) == 8, "INST_UNKNOWN");
_Static_assert(offsetof(struct vkl_instance, chain_handle) == VKL_INSTANCE_NEXT_OFFSET, "vkl_instance_next");
_Static_assert(offsetof(struct vkl_physdev_term, handle) == 16, "TERM_HANDLE");
_Static_assert(offsetof(struct vkl_physdev_term, unknown) == 24, "TERM_UNKNOWN");
_Static_assert(offsetof(struct vkl_device_dispatch, gen) - offsetof(struct vkl_device_dispatch, unknown) ==
                   8 * VKL_MAX_UNKNOWN_FUNCS,
               "DEV_UNKNOWN");
_Static_assert(offsetof(struct vkl_device_dispatch, magic) ==
                   offsetof(struct vkl_device_dispatch, gen) + sizeof(struct vkl_gen_device_dispatch),
               "vkl_check_device_object reads the magic just past the generated table");
_Static_assert(VKL_MAX_UNKNOWN_FUNCS == 250, "the .S file repeats 250 times");
