/* The mock driver's command table entries, shared by the hand-written table (dispatch.c) and the
 * generated one (mock_gen_commands.c, written at build time by tools/vkgen/vkgen_mock.py from vk.xml:
 * a no-op for every core 1.0-1.3 physical-device and device command, answered only for the names
 * the hand-written table does not have). */
#ifndef MOCK_ICD_MOCK_GEN_H_
#define MOCK_ICD_MOCK_GEN_H_

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES 1
#endif
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <vulkan/vulkan.h>

enum cmd_kind { K_GLOBAL, K_INSTANCE, K_PHYSDEV, K_DEVICE };
enum cmd_gate {
    G_ALWAYS,
    G_EIV,             /* expose_enumerate_instance_version */
    G_CORE11,          /* scenario api_version or some physical device >= 1.1 */
    G_GPDP2_KHR,       /* VK_KHR_get_physical_device_properties2 in instance_extensions */
    G_GROUP_KHR,       /* VK_KHR_device_group_creation in instance_extensions */
    G_DEBUG_UTILS,     /* VK_EXT_debug_utils in instance_extensions */
    G_SURFACE,         /* see create_surface */
    G_SURFACE_QUERY,   /* VK_KHR_surface listed (any interface: below 3 the driver reads the loader's container), or the
                          misbehaviour */
    G_SURFACE_XLIB,    /* G_SURFACE and VK_KHR_xlib_surface */
    G_SURFACE_XCB,     /* G_SURFACE and VK_KHR_xcb_surface */
    G_SURFACE_WAYLAND, /* G_SURFACE and VK_KHR_wayland_surface */
    G_SURFACE_HEADLESS, /* G_SURFACE and VK_EXT_headless_surface */
    G_SURFACE_DISPLAY,  /* G_SURFACE and VK_KHR_display */
    G_DISPLAY,          /* VK_KHR_display in instance_extensions (the display queries) */
    G_DISPLAY2,         /* VK_KHR_get_display_properties2 in instance_extensions */
    G_XLIB_DISPLAY,     /* VK_EXT_acquire_xlib_display in instance_extensions */
    G_SURFACE_CAPS2EXT, /* VK_EXT_display_surface_counter in instance_extensions */
    G_SURFACE_CAPS2KHR, /* VK_KHR_get_surface_capabilities2 in instance_extensions */
    G_CORE12,           /* scenario api_version or some physical device >= 1.2 */
    G_CORE13,           /* scenario api_version or some physical device >= 1.3 */
    G_TOOLING_EXT,      /* some physical device lists VK_EXT_tooling_info */
};

struct cmd {
    const char *name;
    PFN_vkVoidFunction fn;
    enum cmd_kind kind;
    enum cmd_gate gate;
};

/* The generated commands, sorted by name (strcmp order). Gates: G_ALWAYS (1.0), G_CORE11, G_CORE12,
 * G_CORE13 (against the device's API version in vkGetDeviceProcAddr). */
extern const struct cmd mock_gen_cmds[];
extern const size_t mock_gen_cmd_count;

/* Helpers of the generated commands (device.c). */
/* A fresh non-dispatchable handle: unique, non-zero, never a heap address of the mock's own. */
uint64_t mock_gen_handle(void);
/* A fresh dispatchable object whose first word is ICD_LOADER_MAGIC (misbehave.no_loader_magic: 0). */
void *mock_gen_dispatchable(void);
/* The scenario's injected result for the command, else `success`. */
VkResult mock_gen_result(const char *command, VkResult success);

#if defined(VK_USE_64_BIT_PTR_DEFINES) && VK_USE_64_BIT_PTR_DEFINES == 1
#define MOCK_GEN_NONDISPATCHABLE(type, value) ((type)(uintptr_t)(value))
#else
#define MOCK_GEN_NONDISPATCHABLE(type, value) ((type)(value))
#endif
/* Zero an output structure except its sType and pNext (the caller's). */
#define MOCK_GEN_ZERO_EXTENSIBLE(p)                                                                                    \
    memset((char *)(p) + sizeof(VkBaseOutStructure), 0, sizeof *(p) - sizeof(VkBaseOutStructure))

#endif /* MOCK_ICD_MOCK_GEN_H_ */
