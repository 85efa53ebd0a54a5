/* A library whose declaration as a whole is wrong, one way per build (tests/plugins/CMakeLists.txt
 * defines one of these): a negative kernel count (NEGATIVE_COUNT), kernels NULL with a count
 * (NULL_KERNELS), an entry point that returns NULL (NULL_DECLARATION), no entry point at all
 * (NO_ENTRY_POINT); and one that is right but declares no kernel (NO_KERNELS). */
#include <peconform/kernel_abi.h>
#include <stddef.h>

#if defined(NEGATIVE_COUNT)
static const pec_plugin plugin = {PECONFORM_ABI_VERSION, "negative-count", -1, NULL};
#elif defined(NULL_KERNELS)
static const pec_plugin plugin = {PECONFORM_ABI_VERSION, "null-kernels", 2, NULL};
#elif defined(NO_KERNELS)
static const pec_plugin plugin = {PECONFORM_ABI_VERSION, "no-kernels", 0, NULL};
#endif

#if defined(NO_ENTRY_POINT)
/* A library with a symbol, but not peconform's. */
const pec_plugin* peconform_plugin_v0(void) { return NULL; }
#elif defined(NULL_DECLARATION)
const pec_plugin* peconform_plugin_v1(void) { return NULL; }
#else
const pec_plugin* peconform_plugin_v1(void) { return &plugin; }
#endif
