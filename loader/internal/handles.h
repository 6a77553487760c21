/*
 * Loader object layouts and the accessors generated code relies on, and the handle casts.
 *
 * Ownership: every object here is owned by the `struct vkl_instance` it belongs to and is allocated
 * through that instance's allocation callbacks. Not thread-safe by itself: the instance lock in
 * instance.c serialises creation and destruction; dispatch through these objects is read-only.
 *
 * Every cast from a handle to the loader object behind it is a static inline function here, not a
 * function in the object's .c file: a cast is a move or one constant subtraction, the same
 * instructions a call site had around the call it replaces, and it makes no object file depend on
 * another (tools/object_deps.py; docs/architecture.md "Object core"). The generated code includes
 * this header alone, so it holds only the layouts the casts need.
 */
#ifndef VKL_INTERNAL_HANDLES_H
#define VKL_INTERNAL_HANDLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "loader/vkl_gen_dispatch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Unknown-function slots per instance (physical-device and device each), as the interface documents. */
#define VKL_MAX_UNKNOWN_FUNCS 250

struct vkl_driver;   /* icd.c: a loaded driver library (cached across instances) */
struct vkl_instance; /* instance.h */

/* Per instance, per driver: the driver's own VkInstance and its dispatch table. */
struct vkl_icd_instance {
    struct vkl_icd_instance *next;
    struct vkl_driver *driver;
    VkInstance handle;                     /* the driver's VkInstance */
    uint32_t api_version;                  /* apiVersion the driver received */
    struct vkl_gen_instance_dispatch disp; /* filled from the driver's vkGetInstanceProcAddr */
    /* unknown physical-device functions from vk_icdGetPhysicalDeviceProcAddr, per slot */
    PFN_vkVoidFunction unknown_physdev[VKL_MAX_UNKNOWN_FUNCS];
    uint32_t index; /* position in the instance's driver list (per-driver arrays, e.g. surfaces) */
};

/* The terminator-side physical device: one per driver physical device. */
struct vkl_physdev_term {
    const struct vkl_gen_instance_dispatch *disp; /* the instance's dispatch key (inst->disp) */
    struct vkl_icd_instance *icd;
    VkPhysicalDevice handle;     /* the driver's VkPhysicalDevice */
    PFN_vkVoidFunction *unknown; /* == icd->unknown_physdev (read by unknown_func_x86_64.S) */
};

/* The application-side physical device. */
struct vkl_physdev_tramp {
    const struct vkl_gen_instance_dispatch *disp; /* top of the instance chain */
    VkPhysicalDevice next;                        /* handle passed down the chain */
    uint64_t magic; /* VKL_PHYSDEV_TRAMP_MAGIC while the instance lives (handle validation) */
    struct vkl_instance *instance;
};

/* One physical device of a driver: the pair of handles above, allocated together (physdev.c). */
struct vkl_physdev {
    struct vkl_physdev_term term;   /* what the chain below the loader trampolines sees */
    struct vkl_physdev_tramp tramp; /* what the application sees */
    struct vkl_physdev *next;
};

/* RULE_HANDLE_VALIDATION: a physical-device handle is validated by this word in its own memory
 * before any pointer it holds is followed (a bad handle's words are not pointers). The third word,
 * where the Khronos loader keeps its own physical-device magic, so a handle forged for either
 * loader reads as invalid in both. */
#define VKL_PHYSDEV_TRAMP_MAGIC 0x564b4c5048595344ull /* "VKLPHYSD" */

/*
 * The device dispatch the loader writes into the first word of VkDevice/VkQueue/VkCommandBuffer:
 * the word points at `gen`; the unknown-function slots sit just before it, at a fixed negative
 * offset that unknown_func_x86_64.S relies on whatever size vk.xml gives the generated table.
 */
struct vkl_device_dispatch {
    PFN_vkVoidFunction unknown[VKL_MAX_UNKNOWN_FUNCS];
    struct vkl_gen_device_dispatch gen;
    uint32_t magic; /* VKL_DEVICE_DISPATCH_MAGIC while the device lives (handle validation) */
};

#define VKL_DEVICE_DISPATCH_MAGIC 0x444c4b56u /* "VKLD" */

extern const struct vkl_gen_instance_dispatch vkl_gen_terminators;

/* Offset of struct vkl_instance's chain_handle (checked in unknown_layout.c). */
#define VKL_INSTANCE_NEXT_OFFSET (sizeof(void *) * (1 + VKL_MAX_UNKNOWN_FUNCS))

/* ---- accessors used by generated trampolines ---- */
static inline const struct vkl_gen_instance_dispatch *vkl_instance_disp(VkInstance instance) {
    return *(const struct vkl_gen_instance_dispatch *const *)(const void *)instance;
}
/* The handle the top of the instance chain knows (a layer's wrapper, or the loader's own). */
static inline VkInstance vkl_instance_next(VkInstance instance) {
    return *(const VkInstance *)(const void *)((const char *)(const void *)instance + VKL_INSTANCE_NEXT_OFFSET);
}
static inline const struct vkl_gen_instance_dispatch *vkl_physdev_disp(VkPhysicalDevice pd) {
    return ((const struct vkl_physdev_tramp *)(const void *)pd)->disp;
}
static inline VkPhysicalDevice vkl_physdev_next(VkPhysicalDevice pd) {
    return ((const struct vkl_physdev_tramp *)(const void *)pd)->next;
}
/* VkDevice, VkQueue, VkCommandBuffer */
static inline const struct vkl_gen_device_dispatch *vkl_device_disp(const void *dispatchable) {
    return *(const struct vkl_gen_device_dispatch *const *)dispatchable;
}

/* ---- handle casts ---- */
/* The loader instance behind a VkInstance the loader handed out (its own, not a layer's wrapper:
 * for those see vkl_chain_instance, chain.h). */
static inline struct vkl_instance *vkl_instance_from_handle(VkInstance instance) {
    return (struct vkl_instance *)(void *)instance;
}
/* The physical device behind a terminator physical device (a VkPhysicalDevice below the layers). */
static inline struct vkl_physdev *vkl_physdev_from_term(VkPhysicalDevice term) {
    return (struct vkl_physdev *)(void *)((char *)(void *)term - offsetof(struct vkl_physdev, term));
}
struct vkl_device; /* device.h */
/* The loader device behind a VkDevice, VkQueue or VkCommandBuffer, from the dispatch pointer in its
 * first word. struct vkl_device begins with its struct vkl_device_dispatch (device.h asserts it), so
 * the offset of the generated table in the dispatch is its offset in the device. */
static inline struct vkl_device *vkl_device_from_handle(const void *dispatchable) {
    const struct vkl_gen_device_dispatch *gen = vkl_device_disp(dispatchable);
    return (struct vkl_device *)(void *)((char *)(uintptr_t)gen - offsetof(struct vkl_device_dispatch, gen));
}

/* ---- handle validation (handles.c) ----
 * An invalid dispatchable handle passed to an exported command ends the process with the line
 * "<cmd>: Invalid <param> [VUID-<cmd>-<param>-parameter]" on stderr, as the Khronos loader does.
 * Generated trampolines check every instance, physical-device and device-level command except the
 * command-buffer recording commands (vkCmd*), whose trampolines stay two instructions (the hot path;
 * docs/architecture.md "Handle validation"). The instance and physical-device checks are out of
 * line in handles.c: they compare with the address of the instance's chain_disp, whose offset only
 * struct vkl_instance's definition (instance.h) knows, and this header is compiled without it. */
_Noreturn void vkl_invalid_handle(const char *cmd, const char *param);
void vkl_check_instance(VkInstance instance, const char *cmd);
void vkl_check_physical_device(VkPhysicalDevice physicalDevice, const char *cmd);
/* Whether `table` is the address of a live device's dispatch table (device.c): a lookup by value,
 * so an invalid handle's first word is never followed. */
bool vkl_device_dispatch_live(const void *table);
/* Registers / unregisters a device's dispatch table with the set above (vkCreateDevice,
 * vkDestroyDevice; handles.c). */
void vkl_device_live_add(const void *table);
void vkl_device_live_remove(const void *table);
/* A VkDevice, VkQueue or VkCommandBuffer: non-NULL, and its first word is the address of a live
 * loader device dispatch (looked up, not followed). */
static inline void vkl_check_device_object(const void *dispatchable, const char *cmd, const char *param) {
    if (__builtin_expect(dispatchable == NULL || !vkl_device_dispatch_live(*(const void *const *)dispatchable), 0))
        vkl_invalid_handle(cmd, param);
}

/* A NULL count pointer of a count/array pair (log.c; RULE_INST_ROBUST_ARGUMENTS): logs the VUID and
 * returns VK_ERROR_OUT_OF_HOST_MEMORY; generated trampolines call it before anything else. */
int vkl_null_count_param(const char *cmd, const char *param, bool returns_result);

/* ---- accessors used by generated terminators ---- */
static inline const struct vkl_gen_instance_dispatch *vkl_term_physdev_icd_disp(VkPhysicalDevice pd) {
    return &((const struct vkl_physdev_term *)(const void *)pd)->icd->disp;
}
static inline VkPhysicalDevice vkl_term_physdev_icd_handle(VkPhysicalDevice pd) {
    return ((const struct vkl_physdev_term *)(const void *)pd)->handle;
}
/* Driver list of a loader instance (handles.c). */
struct vkl_icd_instance *vkl_term_icd_first(VkInstance instance);
/* Logs that a driver lacks `cmd` (terminators call this before returning an error; handles.c). */
void vkl_term_missing(VkInstance instance, VkPhysicalDevice pd, const char *cmd);
/* The loader instance behind a terminator physical device. */
static inline VkInstance vkl_term_physdev_instance(VkPhysicalDevice pd) {
    return (VkInstance)(void *)vkl_physdev_from_term(pd)->tramp.instance;
}

#ifdef __cplusplus
}
#endif
#endif /* VKL_INTERNAL_HANDLES_H */
