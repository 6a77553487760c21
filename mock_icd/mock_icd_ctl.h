/* In-process control interface of the mock Vulkan driver (mock_icd/ctl.c).
 *
 * Every variant libmock_icd_<variant>.so exports these functions (C ABI, default visibility) in
 * addition to its driver interface. Each loaded copy of the library has its own state, so a test
 * reaches a given copy with dlsym(handle, "mock_icd_ctl_...") and the PFN_ typedefs below.
 * Schema of the scenario and of the records: mock_icd/README.md.
 */
#ifndef MOCK_ICD_CTL_H_
#define MOCK_ICD_CTL_H_

#include <stddef.h>
#include <stdint.h>

#include <vulkan/vulkan_core.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(MOCK_ICD_BUILDING)
#define MOCK_ICD_CTL_API __attribute__((visibility("default")))
#else
#define MOCK_ICD_CTL_API
#endif

/* Replaces the scenario with the defaults amended by `json` (a scenario document; NULL: defaults
 * only). Overrides the sidecar file until mock_icd_ctl_reset. Returns 0, or -1 when `json` does
 * not parse or breaks the schema (the scenario in force is then unchanged). */
MOCK_ICD_CTL_API int mock_icd_ctl_load_scenario(const char *json);

/* Forgets ctl changes, re-reads `<library file>.scenario` (or the defaults), clears the in-memory
 * records and the negotiation / first-entry state. Live Vulkan objects stay valid; the `.calls`
 * file is not truncated. */
MOCK_ICD_CTL_API void mock_icd_ctl_reset(void);

/* Number of records kept in memory since load / the last reset. */
MOCK_ICD_CTL_API size_t mock_icd_ctl_record_count(void);

/* Record `i` as one JSON object (no newline), or NULL when i >= count. The string stays valid
 * until mock_icd_ctl_reset or until the library is unloaded. */
MOCK_ICD_CTL_API const char *mock_icd_ctl_record_get(size_t i);

/* Injects `r` as the result of `command` (a Vulkan command name such as "vkCreateDevice", or
 * "vk_icdNegotiateLoaderICDInterfaceVersion"); VK_SUCCESS removes the injection. */
MOCK_ICD_CTL_API void mock_icd_ctl_set_result(const char *command, VkResult r);

typedef int (*PFN_mock_icd_ctl_load_scenario)(const char *json);
typedef void (*PFN_mock_icd_ctl_reset)(void);
typedef size_t (*PFN_mock_icd_ctl_record_count)(void);
typedef const char *(*PFN_mock_icd_ctl_record_get)(size_t i);
typedef void (*PFN_mock_icd_ctl_set_result)(const char *command, VkResult r);

/* Unknown-function pool (scenario "device_functions" / "physdev_functions").
 * The n-th name of the list is answered by pool slot n; every slot has the signature
 *   uint32_t fn(<dispatchable handle>, uint32_t x)
 * records {"call":<name>,"slot":n,"arg":x,"handle":...} and returns the value below, so a test can
 * tell which slot ran with which argument. */
#define MOCK_ICD_UNKNOWN_SLOTS 256u
#define MOCK_ICD_UNKNOWN_DEVICE_RESULT(slot, x) ((uint32_t)(x) + 10000u + (uint32_t)(slot))
#define MOCK_ICD_UNKNOWN_PHYSDEV_RESULT(slot, x) ((uint32_t)(x) + 20000u + (uint32_t)(slot))
typedef uint32_t (*PFN_mock_icd_unknown_device_func)(void *dispatchable_handle, uint32_t x);
typedef uint32_t (*PFN_mock_icd_unknown_physdev_func)(VkPhysicalDevice physical_device, uint32_t x);

#ifdef __cplusplus
}
#endif

#endif /* MOCK_ICD_CTL_H_ */
