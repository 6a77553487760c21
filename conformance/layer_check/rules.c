/* The rules llp-check describes in its SARIF output: the policy text (generated from policies.tsv by
 * conformance/driver/gen_rules.py, llp_policy_text), and here for every check what fails or warns
 * and what to change. */
#include <stddef.h>
#include <string.h>

#include "conformance/layer_check/llp_check.h"

const char *llp_policy_text(const char *id); /* rules_gen.c */

static const struct {
    const char *id, *help;
} k_help[] = {
    {"LLP_LAYER_1",
     "Fails when a step of the fixed workload (instance, device, queue, command buffer, submission) fails or "
     "returns other results with the layer than without it. Let every call the layer does not deliberately change "
     "reach the driver with the application's arguments and return the driver's answer."},
    {"LLP_LAYER_2",
     "Fails when the layer calls the layer below invalidly (a handle or index it was never given); warns when the "
     "calls below the layer are not an image of the application's (a command dropped or repeated). Call down once, "
     "with valid arguments, for every command the layer does not claim to change."},
    {"LLP_LAYER_3",
     "Warns when a layer name is not VK_LAYER_<AUTHOR>_<name> (the author part missing or not upper case). Rename "
     "the layer in its manifest; keep the old name as a meta-layer if applications enable it by name."},
    {"LLP_LAYER_4",
     "Warns when a layer at interface 2 does not export vkNegotiateLoaderLayerInterfaceVersion; fails when the "
     "library exports no entry point the loader can use. Export the negotiation function and answer with "
     "vkGetInstanceProcAddr / vkGetDeviceProcAddr."},
    {"LLP_LAYER_5",
     "Fails when negotiation refuses an offered version the layer supports, writes back a version above the offer, "
     "crashes or hangs. Write back min(offered, supported) and fill the proc-addr members for that version."},
    {"LLP_LAYER_6",
     "Fails when the manifest is not named *.json, is not valid JSON, or the loader's parser rejects a layer in it "
     "(the loader's log line is the evidence). Write the manifest the LoaderLayerInterface document describes."},
    {"LLP_LAYER_7",
     "Fails when a component of a meta-layer is not installed where the loader looks for it. Install every "
     "component with the meta-layer, or remove it from component_layers."},
    {"LLP_LAYER_8",
     "Fails when a component layer declares an api_version older than the meta-layer's. Raise the component's "
     "api_version or lower the meta-layer's."},
    {"LLP_LAYER_9",
     "Fails when an implicit layer has no disable_environment. Add one, so users can turn the layer off."},
    {"LLP_LAYER_10",
     "Fails when the layer below receives a handle the driver never returned (a wrapped handle passed down). "
     "Unwrap every handle before calling down, including handles inside structures."},
    {"LLP_LAYER_11",
     "Not testable by a black-box checker: whether a layer shipped with a driver was conformance-tested with it "
     "is a fact of the submission."},
    {"LLP_LAYER_12",
     "Fails when the layer passes VkLayerInstanceCreateInfo down without advancing u.pLayerInfo, so the layer below "
     "sees the link pointing at itself, or when vkCreateInstance crashes. Advance the link before calling down."},
    {"LLP_LAYER_13",
     "Fails when the layer passes VkLayerDeviceCreateInfo down without advancing u.pLayerInfo, or vkCreateDevice "
     "crashes. Advance the link before calling down."},
    {"LLP_LAYER_14",
     "Fails when the layer frees through the application's callbacks a pointer they never returned; warns when "
     "it allocates with its own allocator while the application gave callbacks. Allocate the objects created "
     "for a call with the pAllocator of that call."},
    {"LLP_LAYER_15",
     "Fails when vkEnumerateInstanceExtensionProperties answers VK_SUCCESS for another layer's name or fails for "
     "its own. Answer VK_ERROR_LAYER_NOT_PRESENT for other names."},
    {"LLP_LAYER_16",
     "Fails when vkEnumerateDeviceExtensionProperties for the layer's name lists extensions the manifest does not "
     "declare, or the query for another name is not passed down. List exactly the manifest's device extensions."},
    {"LLP_LAYER_17",
     "Fails when vkCreateInstance fails because of an extension name the layer does not know. Ignore names the "
     "layer does not implement; the driver judges them."},
    {"LLP_LAYER_18",
     "Fails when vkGetInstanceProcAddr / vkGetDeviceProcAddr return non-NULL for commands of an extension that was "
     "not enabled. Answer NULL, or pass the query down."},
    {"LLP_LAYER_19",
     "Fails when a dispatchable object the layer creates itself reaches the application or the layer below without "
     "the loader's dispatch (pfnSetInstanceLoaderData / pfnSetDeviceLoaderData not called). Call them on every "
     "dispatchable object the layer creates."},
    {"LLP_LAYER_20",
     "Fails when the library the manifest names does not exist or another file is loaded; warns when another "
     "manifest declares the same layer. Remove or update every manifest with the library, in the same package."},
    {"LLP_LAYER_21",
     "Fails when the layer writes *pInstance before calling vkCreateInstance down. Write the created handle only "
     "after the layer below returned."},
    {"LLP_LAYER_22",
     "Fails when the layer writes *pDevice before calling vkCreateDevice down. Write the created handle only after "
     "the layer below returned."},
};

void llp_rule_texts(const char *id, const char **text, const char **help) {
    *text = llp_policy_text(id);
    *help = NULL;
    for (size_t i = 0; i < sizeof k_help / sizeof k_help[0]; i++)
        if (strcmp(k_help[i].id, id) == 0) *help = k_help[i].help;
}
