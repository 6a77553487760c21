/* The rules ldp-check describes in its SARIF output: the policy text (generated from
 * policies.tsv, gen_rules.py), and here for every check what fails or warns and what to change.
 * Lints have no policy row: their text is written here. */
#include <stddef.h>
#include <string.h>

#include "conformance/driver/ldp_check.h"

const char *ldp_policy_text(const char *id); /* rules_gen.c */

static const struct {
    const char *id, *text, *help;
} k_rules[] = {
    {"LDP_DRIVER_1", NULL,
     "Fails when, loaded beside the mock ICD through the reference loader, the process dies, instance creation or "
     "enumeration fails, or the mock's devices, device creation or recorded calls change. Keep global state private "
     "(no interposable symbols, -Bsymbolic, hidden visibility) and never touch objects that are not the driver's own."},
    {"LDP_DRIVER_2", NULL,
     "Fails when an instance or physical-device call crashes or hangs, also with zero devices. Every entry point must "
     "cope with an empty device list (return VK_SUCCESS with count 0) and with the empty array a loader passes after "
     "a zero count."},
    {"LDP_DRIVER_3", NULL,
     "Fails when vk_icdNegotiateLoaderICDInterfaceVersion answers with a version above the offer, refuses every offer, "
     "returns another error than VK_ERROR_INCOMPATIBLE_DRIVER, or the global commands are missing afterwards. Warns "
     "when the chosen version is not min(offered, supported). Export the negotiation function and "
     "vk_icdGetInstanceProcAddr and write back min(offered, supported)."},
    {"LDP_DRIVER_4", NULL,
     "Fails when the manifest is not a .json file holding a JSON object with file_format_version, ICD.library_path "
     "and a strict ICD.api_version, when library_arch disagrees with the library, or when the library cannot be "
     "loaded (dlerror() is quoted). Ship the manifest the loader documents; test it with the loader's own parser."},
    {"LDP_DRIVER_5", NULL,
     "Fails only when the reported conformanceVersion cannot belong to an approved submission: older than the "
     "device's Vulkan version, or no CTS release (checked against a dated snapshot of the CTS's release versions, "
     "cts_versions.c). Otherwise not-testable-here: whether Khronos approved the submission needs Khronos' "
     "conformant-products list. Report 0.0.0.0 until the submission is approved."},
    {"LDP_DRIVER_6",
     "Withdrawn policy: drivers at interface 1 or newer were once told not to export the core vk* entry "
     "points.",
     "Nothing to do: the policy was withdrawn. LINT_VK_EXPORTS keeps the -Bsymbolic advice for drivers that export "
     "vk* symbols."},
    {"LDP_DRIVER_7", NULL,
     "Fails when the manifest's api_version or vkEnumerateInstanceVersion is 1.1 or newer while the driver negotiates "
     "an interface below 5. Support interface 5 (or newer) when offering Vulkan 1.1+."},
    {"LDP_DRIVER_8", NULL,
     "Fails when the driver creates its own surfaces at a highest interface below 3, or a surface command is missing. "
     "Warns when at a negotiated interface below 3 it still answers vkCreate*SurfaceKHR. Negotiate 3 or newer and "
     "answer every VK_KHR_surface command, or leave surfaces to the loader."},
    {"LDP_DRIVER_9", NULL,
     "At interface 4 or older a Vulkan 1.0 driver must refuse an apiVersion above its own with "
     "VK_ERROR_INCOMPATIBLE_DRIVER (fail). A Vulkan 1.1+ driver accepting it is a warning only: the Vulkan "
     "specification forbids that error for 1.1+ implementations."},
    {"LDP_DRIVER_10", NULL,
     "At interface 5 or newer vkCreateInstance must not fail with VK_ERROR_INCOMPATIBLE_DRIVER for any 1.x apiVersion "
     "(fail); refusing only 2.0 is a warning. The loader, not the driver, judges the application's apiVersion."},
    {"LDP_DRIVER_11", NULL,
     "Fails when the library named is missing or the manifest claims a newer Vulkan major.minor than the library "
     "reports. Warns when the manifest is older than the library, another manifest names the same library, or a "
     "different file was loaded. Install and remove the manifest with the library, in the same package."},
    {"LDP_DRIVER_12", NULL,
     "Fails when the driver exposes a platform/WSI extension that is not published in vk.xml; warns for other "
     "unpublished names, or when the registry is older than the driver's header (use --registry with a newer vk.xml)."},
    {"LINT_LOADER_MAGIC",
     "Dispatchable objects (VkInstance, VkPhysicalDevice, VkDevice, VkQueue, VkCommandBuffer) a driver returns must "
     "start with ICD_LOADER_MAGIC, where the loader stores its dispatch pointer (LoaderDriverInterface.md, driver "
     "dispatchable object creation).",
     "Fails when a returned dispatchable handle does not point at ICD_LOADER_MAGIC. Allocate dispatchable objects with "
     "room for the loader's pointer first and initialise it with set_loader_magic_value()."},
    {"LINT_GPDPA_NULL",
     "vk_icdGetPhysicalDeviceProcAddr must return NULL for names that are not physical-device commands, so the loader "
     "can route unknown commands (LoaderDriverInterface.md, unknown physical-device extensions).",
     "Fails when it answers instance or device command names. Return NULL for anything that does not take a "
     "VkPhysicalDevice first."},
    {"LINT_GIPA_NULL",
     "vk_icdGetInstanceProcAddr must return NULL for names it does not implement and must answer every command the "
     "loader requires of a driver.",
     "Fails when an unknown name is answered or a required command (vkGetDeviceProcAddr, the physical-device queries) "
     "is missing; warns when a NULL instance answers non-global names."},
    {"LINT_GLOBAL_NULL_INSTANCE",
     "vkCreateInstance, vkEnumerateInstanceExtensionProperties (and vkEnumerateInstanceVersion for 1.1+) must be "
     "queryable through vk_icdGetInstanceProcAddr with a NULL instance.",
     "Fails when vkCreateInstance or vkEnumerateInstanceExtensionProperties is missing with a NULL instance; warns "
     "when "
     "vkEnumerateInstanceVersion is."},
    {"LINT_VK_EXPORTS",
     "A driver that exports standard vk* symbols should link with -Bsymbolic so its own calls do not bind to another "
     "library's (the loader's) functions of the same name.",
     "Warns when vk* symbols are exported and the library is not linked with -Bsymbolic. Link with -Wl,-Bsymbolic or "
     "stop exporting vk* (a version script exporting vk_icd* only)."},
    {"LINT_UNTRUSTED_ANSWERS",
     "A driver's answers must keep to the count/array protocol and the limits of the structures they fill, since a "
     "loader that trusts a lying driver reads or writes out of bounds (RULE_DRV_UNTRUSTED_ANSWERS).",
     "Fails when the driver reports more elements than the array it was given holds, writes past *pCount, reports "
     "a device group with more than VK_MAX_DEVICE_GROUP_SIZE members or a member it never enumerated, returns a "
     "name without NUL or not UTF-8, a NULL or duplicate VkPhysicalDevice, or VK_SUCCESS with a NULL VkDevice. "
     "Keep to the count/array protocol: write at most *pCount elements and return VK_INCOMPLETE when more exist."},
    /* ICD packages (--package): the texts are the policy table's RULE_ICDPKG_* rows. */
    {"RULE_ICDPKG_1", NULL,
     "Fails when meta/metadata/metadata.json is missing, not a regular file, larger than 1 MiB, not JSON or not a "
     "JSON object. Put the metadata in the directory the component exposes as \"metadata\" (meta/metadata/)."},
    {"RULE_ICDPKG_2", NULL, "Fails unless \"version\" is the number 1, the only metadata version defined."},
    {"RULE_ICDPKG_3", NULL,
     "Fails when \"file_path\" (the library) or \"manifest_path\" (the Khronos ICD manifest) is missing, not a "
     "string or empty."},
    {"RULE_ICDPKG_4", NULL,
     "Fails when a path is absolute or has an empty, '.' or '..' component: both are relative to the package's "
     "contents directory, canonical, and stay inside it."},
    {"RULE_ICDPKG_5", NULL,
     "Fails when the library or the manifest is not a regular file at its path in the package (missing, a directory, "
     "or a symbolic link leaving the package). Ship both files in the package."},
    {"RULE_ICDPKG_6", NULL, "Fails when file_path is under bin/; put the library under lib/ (or anywhere but bin/)."},
    {"RULE_ICDPKG_7", NULL,
     "Warns when manifest_path is not under meta/, where small files are stored most efficiently (advice of the "
     "loader's documentation; not a failure)."},
};

void ldp_rule_texts(const char *id, const char **text, const char **help) {
    *text = ldp_policy_text(id);
    *help = NULL;
    for (size_t i = 0; i < sizeof k_rules / sizeof k_rules[0]; i++) {
        if (strcmp(k_rules[i].id, id) != 0) continue;
        if (*text == NULL) *text = k_rules[i].text;
        *help = k_rules[i].help;
    }
}
