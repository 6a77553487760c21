/* In-process control interface of the mock Vulkan layer (mock_layers/mock_layer.c).
 *
 * Every variant libmock_layer_<variant>.so exports these functions besides its layer interface.
 * Each loaded copy has its own state; reach a copy with dlsym(handle, "mock_layer_ctl_...").
 * Scenario and record schema: mock_layers/README.md.
 */
#ifndef MOCK_LAYER_CTL_H_
#define MOCK_LAYER_CTL_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(MOCK_LAYER_BUILDING)
#define MOCK_LAYER_CTL_API __attribute__((visibility("default")))
#else
#define MOCK_LAYER_CTL_API
#endif

/* Replaces the scenario with the defaults amended by `json` (NULL: defaults). Returns 0, or -1
 * when `json` does not parse (the scenario in force is unchanged). */
MOCK_LAYER_CTL_API int mock_layer_ctl_load_scenario(const char *json);
/* Re-reads `<library file>.scenario` (or the defaults) and clears the in-memory records. */
MOCK_LAYER_CTL_API void mock_layer_ctl_reset(void);
/* Records kept in memory since load / the last reset, and record i (one JSON object). */
MOCK_LAYER_CTL_API size_t mock_layer_ctl_record_count(void);
MOCK_LAYER_CTL_API const char *mock_layer_ctl_record_get(size_t i);

/* What a scenario's "device_functions" / "physdev_functions" command returns when the layer
 * answers it itself (nothing below it has the command): */
#define MOCK_LAYER_OWN_DEVICE_RESULT(x) ((uint32_t)(x) + 30000u)
#define MOCK_LAYER_OWN_PHYSDEV_RESULT(x) ((uint32_t)(x) + 40000u)

typedef int (*PFN_mock_layer_ctl_load_scenario)(const char *json);
typedef void (*PFN_mock_layer_ctl_reset)(void);
typedef size_t (*PFN_mock_layer_ctl_record_count)(void);
typedef const char *(*PFN_mock_layer_ctl_record_get)(size_t i);

#if defined(MOCK_LAYER_BUILDING)
/* The layer-interface exports of mock_layer.c that no Vulkan header declares (the variant's
 * compile-time switches, variants.bzl, decide which of them it defines). */
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#ifdef MOCK_LAYER_NEGOTIATE_NAME
MOCK_LAYER_CTL_API VKAPI_ATTR VkResult VKAPI_CALL MOCK_LAYER_NEGOTIATE_NAME(VkNegotiateLayerInterface *ni);
#endif
#ifdef MOCK_LAYER_GIPA_NAME
MOCK_LAYER_CTL_API VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL MOCK_LAYER_GIPA_NAME(VkInstance instance, const char *name);
#endif
#ifdef MOCK_LAYER_GDPA_NAME
MOCK_LAYER_CTL_API VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL MOCK_LAYER_GDPA_NAME(VkDevice device, const char *name);
#endif
MOCK_LAYER_CTL_API VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vk_layerGetPhysicalDeviceProcAddr(VkInstance instance,
                                                                                              const char *name);
MOCK_LAYER_CTL_API VKAPI_ATTR VkResult VKAPI_CALL mock_layer_pre_EnumerateInstanceExtensionProperties(
    const VkEnumerateInstanceExtensionPropertiesChain *chain, const char *pLayerName, uint32_t *pCount,
    VkExtensionProperties *pProps);
MOCK_LAYER_CTL_API VKAPI_ATTR VkResult VKAPI_CALL mock_layer_pre_EnumerateInstanceLayerProperties(
    const VkEnumerateInstanceLayerPropertiesChain *chain, uint32_t *pCount, VkLayerProperties *pProps);
MOCK_LAYER_CTL_API VKAPI_ATTR VkResult VKAPI_CALL
mock_layer_pre_EnumerateInstanceVersion(const VkEnumerateInstanceVersionChain *chain, uint32_t *pApiVersion);
#endif

#ifdef __cplusplus
}
#endif
#endif /* MOCK_LAYER_CTL_H_ */
