/* pclreduce_vk.h - Vulkan backend of pclreduce: the generated GLSL 4.50
   compute kernels, compiled to SPIR-V by shaderc (or the caller's compiler),
   run on VkBuffers. Use: define PCLREDUCE_IMPLEMENTATION and PCLREDUCE_VULKAN
   in one file, include pclreduce.h. vulkan/vulkan.h is needed for its types
   only: the Vulkan loader and shaderc are loaded at run time into
   per-context tables (programs link -ldl only; PCLREDUCE_NO_RUNTIME_LINKING
   takes the linked functions: -lvulkan -lshaderc_shared).

   First found wins. Vulkan: desc.vulkan_api, desc.vulkan_library,
   $PCLR_VULKAN_LIBRARY, libvulkan.so.1, libvulkan.so (vulkan-1.dll). shaderc:
   desc.compiler (the caller's GLSL -> SPIR-V callback: no shaderc at all),
   desc.shaderc_api, desc.shaderc_library, $PCLR_SHADERC_LIBRARY,
   libshaderc.so.1, libshaderc_shared.so.1, libshaderc.so (shaderc_shared.dll).
   An explicit path that fails is an error. Both load at pclr_vk_create, which
   fails (PCLR_ERR_NO_DRIVER, why in desc.error) without them, unless
   desc.allow_no_compiler: then a context without shaderc runs the pipelines
   the disk cache holds, and the first one it would compile fails with that
   sentence. The loader stays loaded; shaderc is unloaded by pclr_vk_destroy.

   A context works on the engine's own VkInstance / VkPhysicalDevice /
   VkDevice / queue family (its device must have VK_KHR_push_descriptor
   and shaderInt64 enabled, shaderFloat64 for doubles and exact sums, and
   for exact sums shaderBufferInt64Atomics and shaderSharedInt64Atomics of
   VK_KHR_shader_atomic_int64, taken as enabled where the physical device
   has them), or creates its own (tools, tests; it enables those it finds). Kernels keep inf, NaN and -0 (SignedZeroInfNanPreserve)
   where the device reports it; on the engine's device only at Vulkan 1.2+
   (whether VK_KHR_shader_float_controls is enabled there is not known).
   Each configuration is one compute pipeline, built once
   (SPIR-V cached on disk beside CUBIN and OpenCL binaries); every pipeline
   shares one descriptor set layout (six storage buffers, pushed per
   dispatch) and one pipeline layout.

   Buffers: a buffer's handle is its VkBuffer. pclr_buffer_create makes one
   (device-local); pclr_vk_buffer wraps a program's VkBuffer with its size
   (Vulkan cannot tell it) without allocating anything.

   Recording (pclr_reduce_async with sync.vulkan_commands; the deprecated
   pclr_vk_record): the reduce goes into the caller's command buffer, which
   the engine submits inside its frame; the states go to the states buffer
   (pclr_vk_buffer around the engine's VkBuffer). The barriers:
   - before: the caller makes its writes of the input visible to compute
     shader reads (srcStage = the producer, dstStage =
     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, dstAccess = VK_ACCESS_SHADER_READ_BIT);
   - inside: pclr records a compute-to-compute barrier (shader writes ->
     shader reads and writes) before each of its dispatches, because the
     context's scratch (ticket counter, partials) is shared by every reduce
     it records;
   - after: the state (pclr_state_size bytes; pclr_finalize turns it into
     the result) is written by VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT with
     VK_ACCESS_SHADER_WRITE_BIT: the caller's barrier makes it visible to its
     consumer (TRANSFER_READ for a copy, HOST_READ for a readback,
     UNIFORM_READ / SHADER_READ for a later pass).
   Recording binds a compute pipeline, pushes descriptor set 0 and push
   constants: the caller rebinds its own compute state afterwards. Reduces
   recorded from one context must run in the order recorded (one queue, or
   semaphores between queues): they share the scratch.

   Errors, allocator, NULL contexts: the contract in pclreduce.h. Not
   thread-safe. License: MIT (the full text is at the end of this file). */
#ifndef PCLREDUCE_VK_H
#define PCLREDUCE_VK_H

#ifndef PCLREDUCE_VULKAN
#define PCLREDUCE_VULKAN /* the generic context can pick this backend */
#endif
#include "pclreduce.h"
#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES /* types only: nothing is linked */
#endif
#include <vulkan/vulkan.h>

PCLR_EXTERN_C_BEGIN

/* The Vulkan entry points the backend calls: X(return type, field, parameters, symbol). */
#define PCLR_VULKAN_ENTRY_POINTS(X)                                                                                     \
    X(PFN_vkGetInstanceProcAddr, GetInstanceProcAddr, , "vkGetInstanceProcAddr")                                       \
    X(PFN_vkCreateInstance, CreateInstance, , "vkCreateInstance")                                                       \
    X(PFN_vkDestroyInstance, DestroyInstance, , "vkDestroyInstance")                                                    \
    X(PFN_vkEnumeratePhysicalDevices, EnumeratePhysicalDevices, , "vkEnumeratePhysicalDevices")                         \
    X(PFN_vkGetPhysicalDeviceProperties, GetPhysicalDeviceProperties, , "vkGetPhysicalDeviceProperties")                \
    X(PFN_vkGetPhysicalDeviceProperties2, GetPhysicalDeviceProperties2, , "vkGetPhysicalDeviceProperties2")             \
    X(PFN_vkGetPhysicalDeviceFeatures, GetPhysicalDeviceFeatures, , "vkGetPhysicalDeviceFeatures")                      \
    X(PFN_vkGetPhysicalDeviceQueueFamilyProperties, GetPhysicalDeviceQueueFamilyProperties, ,                           \
      "vkGetPhysicalDeviceQueueFamilyProperties")                                                                       \
    X(PFN_vkGetPhysicalDeviceMemoryProperties, GetPhysicalDeviceMemoryProperties, , "vkGetPhysicalDeviceMemoryProperties") \
    X(PFN_vkEnumerateDeviceExtensionProperties, EnumerateDeviceExtensionProperties, ,                                   \
      "vkEnumerateDeviceExtensionProperties")                                                                           \
    X(PFN_vkCreateDevice, CreateDevice, , "vkCreateDevice")                                                             \
    X(PFN_vkDestroyDevice, DestroyDevice, , "vkDestroyDevice")                                                          \
    X(PFN_vkGetDeviceQueue, GetDeviceQueue, , "vkGetDeviceQueue")                                                       \
    X(PFN_vkGetDeviceProcAddr, GetDeviceProcAddr, , "vkGetDeviceProcAddr")                                              \
    X(PFN_vkCreateBuffer, CreateBuffer, , "vkCreateBuffer")                                                             \
    X(PFN_vkDestroyBuffer, DestroyBuffer, , "vkDestroyBuffer")                                                          \
    X(PFN_vkGetBufferMemoryRequirements, GetBufferMemoryRequirements, , "vkGetBufferMemoryRequirements")                \
    X(PFN_vkAllocateMemory, AllocateMemory, , "vkAllocateMemory")                                                       \
    X(PFN_vkFreeMemory, FreeMemory, , "vkFreeMemory")                                                                   \
    X(PFN_vkBindBufferMemory, BindBufferMemory, , "vkBindBufferMemory")                                                 \
    X(PFN_vkMapMemory, MapMemory, , "vkMapMemory")                                                                      \
    X(PFN_vkUnmapMemory, UnmapMemory, , "vkUnmapMemory")                                                                \
    X(PFN_vkCreateShaderModule, CreateShaderModule, , "vkCreateShaderModule")                                           \
    X(PFN_vkDestroyShaderModule, DestroyShaderModule, , "vkDestroyShaderModule")                                        \
    X(PFN_vkCreateDescriptorSetLayout, CreateDescriptorSetLayout, , "vkCreateDescriptorSetLayout")                      \
    X(PFN_vkDestroyDescriptorSetLayout, DestroyDescriptorSetLayout, , "vkDestroyDescriptorSetLayout")                   \
    X(PFN_vkCreatePipelineLayout, CreatePipelineLayout, , "vkCreatePipelineLayout")                                     \
    X(PFN_vkDestroyPipelineLayout, DestroyPipelineLayout, , "vkDestroyPipelineLayout")                                  \
    X(PFN_vkCreateComputePipelines, CreateComputePipelines, , "vkCreateComputePipelines")                               \
    X(PFN_vkDestroyPipeline, DestroyPipeline, , "vkDestroyPipeline")                                                    \
    X(PFN_vkCreateCommandPool, CreateCommandPool, , "vkCreateCommandPool")                                              \
    X(PFN_vkDestroyCommandPool, DestroyCommandPool, , "vkDestroyCommandPool")                                           \
    X(PFN_vkAllocateCommandBuffers, AllocateCommandBuffers, , "vkAllocateCommandBuffers")                               \
    X(PFN_vkBeginCommandBuffer, BeginCommandBuffer, , "vkBeginCommandBuffer")                                           \
    X(PFN_vkEndCommandBuffer, EndCommandBuffer, , "vkEndCommandBuffer")                                                 \
    X(PFN_vkResetCommandBuffer, ResetCommandBuffer, , "vkResetCommandBuffer")                                           \
    X(PFN_vkCmdBindPipeline, CmdBindPipeline, , "vkCmdBindPipeline")                                                    \
    X(PFN_vkCmdPushConstants, CmdPushConstants, , "vkCmdPushConstants")                                                \
    X(PFN_vkCmdDispatch, CmdDispatch, , "vkCmdDispatch")                                                                \
    X(PFN_vkCmdPipelineBarrier, CmdPipelineBarrier, , "vkCmdPipelineBarrier")                                           \
    X(PFN_vkCmdCopyBuffer, CmdCopyBuffer, , "vkCmdCopyBuffer")                                                          \
    X(PFN_vkCmdWriteTimestamp, CmdWriteTimestamp, , "vkCmdWriteTimestamp")                                              \
    X(PFN_vkCmdResetQueryPool, CmdResetQueryPool, , "vkCmdResetQueryPool")                                              \
    X(PFN_vkCreateQueryPool, CreateQueryPool, , "vkCreateQueryPool")                                                    \
    X(PFN_vkDestroyQueryPool, DestroyQueryPool, , "vkDestroyQueryPool")                                                 \
    X(PFN_vkGetQueryPoolResults, GetQueryPoolResults, , "vkGetQueryPoolResults")                                        \
    X(PFN_vkCreateFence, CreateFence, , "vkCreateFence")                                                                \
    X(PFN_vkDestroyFence, DestroyFence, , "vkDestroyFence")                                                             \
    X(PFN_vkWaitForFences, WaitForFences, , "vkWaitForFences")                                                          \
    X(PFN_vkResetFences, ResetFences, , "vkResetFences")                                                                \
    X(PFN_vkQueueSubmit, QueueSubmit, , "vkQueueSubmit")                                                                \
    X(PFN_vkDeviceWaitIdle, DeviceWaitIdle, , "vkDeviceWaitIdle")
/* A device-level extension entry point: found through vkGetDeviceProcAddr when the table leaves it NULL. */
#define PCLR_VULKAN_DEVICE_ENTRY_POINTS(X) X(PFN_vkCmdPushDescriptorSetKHR, CmdPushDescriptorSetKHR, , "vkCmdPushDescriptorSetKHR")

/* shaderc's C API (shaderc/shaderc.h), its handles as void pointers: the
   header is not needed. kind 2 is a compute shader, status 0 success. */
#define PCLR_SHADERC_ENTRY_POINTS(X)                                                                                     \
    X(void *, CompilerInitialize, (void), "shaderc_compiler_initialize")                                                \
    X(void, CompilerRelease, (void *), "shaderc_compiler_release")                                                      \
    X(void *, OptionsInitialize, (void), "shaderc_compile_options_initialize")                                          \
    X(void, OptionsRelease, (void *), "shaderc_compile_options_release")                                                \
    X(void, OptionsSetTargetEnv, (void *, int, uint32_t), "shaderc_compile_options_set_target_env")                     \
    X(void, OptionsSetOptimizationLevel, (void *, int), "shaderc_compile_options_set_optimization_level")               \
    X(void *, CompileIntoSpv, (void *, const char *, size_t, int, const char *, const char *, void *),                  \
      "shaderc_compile_into_spv")                                                                                       \
    X(void, ResultRelease, (void *), "shaderc_result_release")                                                          \
    X(size_t, ResultGetLength, (void *), "shaderc_result_get_length")                                                   \
    X(const char *, ResultGetBytes, (void *), "shaderc_result_get_bytes")                                               \
    X(int, ResultGetCompilationStatus, (void *), "shaderc_result_get_compilation_status")                               \
    X(const char *, ResultGetErrorMessage, (void *), "shaderc_result_get_error_message")

#define PCLR__VK_FIELD(type, name, params, sym) type name;
#define PCLR__SHADERC_FIELD(ret, name, params, sym) ret (*name) params;
typedef struct pclr_vk_api {
    PCLR_VULKAN_ENTRY_POINTS(PCLR__VK_FIELD)
    PCLR_VULKAN_DEVICE_ENTRY_POINTS(PCLR__VK_FIELD)
} pclr_vk_api;
typedef struct pclr_shaderc_api { PCLR_SHADERC_ENTRY_POINTS(PCLR__SHADERC_FIELD) } pclr_shaderc_api;
#undef PCLR__VK_FIELD
#undef PCLR__SHADERC_FIELD

/* An engine's own GLSL -> SPIR-V compiler (glslang, shaderc, DXC...) instead
   of shaderc: compile gets a GLSL 4.50 compute shader (target Vulkan 1.1) and
   returns 0 with *code / *bytes (SPIR-V words, valid until release), or
   nonzero with *log a NUL-terminated message (may stay NULL). release frees
   what the last compile handed out (may be NULL). */
typedef struct pclr_vk_compiler {
    int (*compile)(void *user, const char *source, size_t length, const uint32_t **code, size_t *bytes, const char **log);
    void (*release)(void *user);
    void *user;
} pclr_vk_compiler;

/* Which device, when the desc gives no engine objects (the context makes its
   own instance and device). One rule, checked in this order:
   1. device_number != 0 wins: k > 0 is device k - 1 (pclr_vk_list_devices'
      numbering); k < 0 is PCLR_ERR_NO_DEVICE;
   2. else device_index > 0 (deprecated since 0.3.1, honoured through 0.4):
      the old 0-based index;
   3. else (a zero desc; device_index 0 or negative) the best device: discrete GPU,
      then integrated, virtual, other, those with shaderInt64, Vulkan 1.1 and
      VK_KHR_push_descriptor first, the first listed on ties.
   Before 0.3.1 a zero desc (device_index 0) took device 0 while a NULL desc took
   the best; both take the best now (device 0 is device_number 1). The
   numbering is pclr_desc.device's: 0 = best, k = device k - 1. */
typedef struct pclr_vk_desc {
    /* The engine's objects (all or none): its instance, physical device,
       device (with VK_KHR_push_descriptor and shaderInt64 enabled), a queue
       family with compute and, for the blocking calls, a queue of it
       (VK_NULL_HANDLE: queue 0). They must outlive the context. */
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    uint32_t queue_family;
    VkQueue queue;
    const VkPhysicalDeviceFeatures *enabled_features; /* what the engine enabled; NULL: what the device supports */
    int device_index;            /* deprecated (0.3.1, kept through 0.4): 0-based, -1 the best; use device_number. Read only when device_number is 0 */
    PCLR_DESC_COMMON             /* allocator, caches, tuning file, error: as in pclr_desc */
    const char *vulkan_library, *shaderc_library;
    const pclr_vk_api *vulkan_api;
    const pclr_shaderc_api *shaderc_api;
    pclr_vk_compiler compiler;   /* zero: shaderc */
    int allow_no_compiler;       /* 1: create succeeds when shaderc does not load (a program that runs cached
                                    pipelines only); the first build that needs a compile fails, saying why */
    int device_number;           /* no engine objects: 0 = the best device, k > 0 = device k - 1 (see above) */
} pclr_vk_desc;

typedef struct pclr_vk_features {
    char device_name[256];
    uint32_t vendor_id, api_version, driver_version;
    VkPhysicalDeviceType type;
    uint32_t compute_units;      /* NVIDIA: multiprocessors (VK_NV_shader_sm_builtins); else an estimate */
    uint32_t max_group_size;
    uint32_t subgroup_size;
    int subgroup_ops;            /* subgroup arithmetic and relative shuffles in compute shaders */
    int int64, float64;          /* shaderInt64, shaderFloat64 (enabled) */
    int preserve32, preserve64;  /* the kernels keep inf, NaN and -0 in 32/64-bit floats (see pclr__vk_preserve) */
    uint64_t max_storage_range;  /* maxStorageBufferRange */
    uint32_t max_push_constants, max_shared_bytes, storage_alignment;
    uint32_t queue_family;       /* the context's (its own device has one queue there) */
} pclr_vk_features;

typedef struct pclr_vk_context pclr_vk_context;

/* What a generic Vulkan context runs on, for the program's own work: its instance, physical device,
   device, queue family and queue (the context's own, or the program's from desc.vulkan), the entry
   points it loaded, what it found out about the device. */
typedef struct pclr_vk_native {
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    uint32_t queue_family;
    VkQueue queue;
    const pclr_vk_api *api;
    const pclr_vk_features *features;
} pclr_vk_native;
/* PCLR_ERR_INVALID_CONTEXT for NULL, PCLR_ERR_INVALID_ARGUMENT for a context of another backend. */
PCLR_API pclr_result pclr_vk_get_native(const pclr_context *ctx, pclr_vk_native *out);

/* Deprecated (0.4; removed in 0.5), with what replaces them: the Vulkan context of its own
   (pclr_vk_create: pclr_create with desc.backends = {PCLR_VULKAN}, the program's objects in
   desc.vulkan; _destroy, _resolve, _prepare, _tune, _build_log, _last_error, _describe: the generic
   pclr_* call; _get_api, _get_features, _get_device: pclr_vk_get_native; _buffer_create, _destroy,
   _write, _read: pclr_buffer_*; pclr_context_vk: not needed).
   desc may be NULL (the best device on an instance of the context's own). */
PCLR_DEPRECATED pclr_result pclr_vk_create(const pclr_vk_desc *desc, pclr_vk_context **out);
PCLR_DEPRECATED void pclr_vk_destroy(pclr_vk_context *ctx);
PCLR_DEPRECATED const pclr_vk_features *pclr_vk_get_features(const pclr_vk_context *ctx); /* NULL for NULL */
/* The context's entry points and its device objects (the context's own, or the engine's). */
PCLR_DEPRECATED const pclr_vk_api *pclr_vk_get_api(const pclr_vk_context *ctx);
PCLR_DEPRECATED VkDevice pclr_vk_get_device(const pclr_vk_context *ctx);
/* Tables without a context (path NULL: the environment variable, else the usual names). */
PCLR_API pclr_result pclr_vk_load_api(const char *path, pclr_vk_api *api, char *why, size_t why_cap);
PCLR_API pclr_result pclr_shaderc_load_api(const char *path, pclr_shaderc_api *api, char *why, size_t why_cap);
/* The Vulkan devices here, one line each ("0: NVIDIA H100 80GB HBM3 (discrete, Vulkan 1.4.312, driver NVIDIA 570.124.06,
   subgroup 32, shaderInt64 yes, shaderFloat64 yes)": the driver's name and version string), under the
   buffer protocol of pclr_config_describe; *count (may be NULL) gets their number. desc: the library fields. */
PCLR_API pclr_result pclr_vk_list_devices(const pclr_vk_desc *desc, char *buf, size_t cap, size_t *len, int *count);
/* Backend vulkan where 0, the device's defaults, pclr_config_resolve, then the device's limits. */
PCLR_DEPRECATED pclr_result pclr_vk_resolve(pclr_vk_context *ctx, const pclr_config *cfg, pclr_config *out);
/* Builds cfg's pipeline now (otherwise the first reduce does). */
PCLR_DEPRECATED pclr_result pclr_vk_prepare(pclr_vk_context *ctx, const pclr_config *cfg);
/* Deprecated (0.4; removed in 0.5): pclr_vk_record, pclr_vk_record_map,
   pclr_vk_reduce and pclr_vk_reduce_map, now thin wrappers of the engine's
   reduce. Use pclr_reduce / pclr_reduce_async on a generic context (desc.backends
   = {PCLR_VULKAN}; pclr_context_vk gives its Vulkan context), the program's
   VkBuffers wrapped by pclr_vk_buffer and sync.vulkan_commands the command buffer.
   Records a reduce of n elements of cfg's type from element `offset` of
   `in` (a storage buffer of in_size bytes, its size when created) into
   `cmd` (recording; a compute queue's): the state (pclr_state_size bytes)
   goes to `out` at byte out_offset (a multiple of 4). The barriers: see the
   top of this file. */
PCLR_DEPRECATED pclr_result pclr_vk_record(pclr_vk_context *ctx, VkCommandBuffer cmd, const pclr_config *cfg, VkBuffer in,
                                    VkDeviceSize in_size, uint64_t offset, uint64_t n, VkBuffer out, VkDeviceSize out_offset);
/* With a map: its second input y (VK_NULL_HANDLE when it has none) and its parameters' values (NULL when none). */
PCLR_DEPRECATED pclr_result pclr_vk_record_map(pclr_vk_context *ctx, VkCommandBuffer cmd, const pclr_config *cfg, VkBuffer x,
                                        VkDeviceSize x_size, uint64_t x_offset, VkBuffer y, VkDeviceSize y_size, uint64_t y_offset,
                                        uint64_t n, const double *params, VkBuffer out, VkDeviceSize out_offset);
/* Blocking (deprecated, as above): records into the context's own command buffer, submits to its queue, waits, and
   writes the result. */
PCLR_DEPRECATED pclr_result pclr_vk_reduce(pclr_vk_context *ctx, const pclr_config *cfg, VkBuffer in, VkDeviceSize in_size,
                                    uint64_t offset, uint64_t n, void *result);
PCLR_DEPRECATED pclr_result pclr_vk_reduce_map(pclr_vk_context *ctx, const pclr_config *cfg, VkBuffer x, VkDeviceSize x_size,
                                        uint64_t x_offset, VkBuffer y, VkDeviceSize y_size, uint64_t y_offset, uint64_t n,
                                        const double *params, void *result);
/* Storage buffers of the context's device (device-local; copies staged when the memory is not host-visible). */
PCLR_DEPRECATED pclr_result pclr_vk_buffer_create(pclr_vk_context *ctx, size_t bytes, VkBuffer *out);
PCLR_DEPRECATED void pclr_vk_buffer_destroy(pclr_vk_context *ctx, VkBuffer buf);
PCLR_DEPRECATED pclr_result pclr_vk_buffer_write(pclr_vk_context *ctx, VkBuffer buf, size_t offset, const void *src, size_t bytes);
PCLR_DEPRECATED pclr_result pclr_vk_buffer_read(pclr_vk_context *ctx, VkBuffer buf, size_t offset, void *dst, size_t bytes);
/* The tuner (see pclr_tune), timed with timestamp queries. */
PCLR_DEPRECATED pclr_result pclr_vk_tune(pclr_vk_context *ctx, pclr_type type, pclr_op op, const pclr_tune_options *opt,
                                  pclr_tune_entry *out, size_t cap, size_t *count);
PCLR_DEPRECATED const char *pclr_vk_build_log(const pclr_vk_context *ctx);
PCLR_DEPRECATED const char *pclr_vk_last_error(const pclr_vk_context *ctx);
PCLR_DEPRECATED size_t pclr_vk_describe(const pclr_vk_context *ctx, char *buf, size_t cap);
/* The generic context's Vulkan context and a buffer's VkBuffer (NULL / VK_NULL_HANDLE on another backend). */
PCLR_DEPRECATED pclr_vk_context *pclr_context_vk(const pclr_context *ctx);
PCLR_API VkBuffer pclr_buffer_vk(const pclr_context *ctx, const pclr_buffer *buf);
/* A program's VkBuffer (a storage buffer of the context's device) as a buffer of the generic context ctx, for
   pclr_reduce and pclr_reduce_async: *out is a value to keep where the program likes (nothing is allocated;
   pclr_buffer_destroy leaves it alone). Vulkan cannot tell a buffer's size: bytes is the size it was created
   with (0 only for a buffer of this context's pclr_buffer_create or pclr_vk_buffer_create, whose size it
   knows). pclr_buffer_write / pclr_buffer_read do not reach a program's VkBuffer (its memory is the program's). */
PCLR_API pclr_result pclr_vk_buffer(pclr_context *ctx, VkBuffer buffer, size_t bytes, pclr_buffer *out);
/* No device needed: compiles cfg's kernel (backend vulkan where 0, the
   shuffle variant when subgroup is nonzero) to SPIR-V with shaderc or
   desc->compiler; the log, or why there was no compile, to log/log_cap.
   PCLR_ERR_NO_DRIVER without shaderc, PCLR_ERR_BUILD_FAILED on errors. */
PCLR_API pclr_result pclr_vk_compile_check(const pclr_config *cfg, const pclr_vk_desc *desc, char *log, size_t log_cap);

PCLR_EXTERN_C_END

#endif /* PCLREDUCE_VK_H */

/* ====================================================================== */
#if defined(PCLREDUCE_IMPLEMENTATION) && !defined(PCLREDUCE_VK_IMPLEMENTED)
#define PCLREDUCE_VK_IMPLEMENTED
PCLR__DEPRECATED_OK_BEGIN

#define PCLR__VK_BINDINGS 6         /* x, out, partials, counter (a layout's ctl), y, a layout's segment offsets */
#define PCLR__VK_CTL_BYTES 1024     /* word 0: the ticket counter; words 2..7: the atomic finish's running values; */
#define PCLR__VK_CTL_SLOTS 2        /* first word of the running values, (uint|int) x (sum|min|max) */
#define PCLR__VK_CTL_ZEROED 64      /* word 64 on: the exact sum's cells (pclr__zeroed_scratch_bytes), zero between launches */
#define PCLR__VK_RESULT_BYTES 256   /* the blocking calls' state, host-visible */
#define PCLR__VK_STAGING_BYTES ((VkDeviceSize)64 << 20)
#define PCLR__VK_ROUNDED(bytes) ((bytes) ? ((VkDeviceSize)(bytes) + 15) / 16 * 16 : 16) /* what a buffer of ours holds */
#define PCLR__VK_RETIRED 16         /* outgrown partials buffers kept until destroy (recorded work may use them) */

/* A buffer and its memory (the generic buffers, the scratch, staging). */
typedef struct pclr__vk_mem {
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize size;
    void *mapped;                    /* host-visible and coherent: mapped for the buffer's life */
} pclr__vk_mem;

struct pclr_vk_context {
    pclr__engine e;                  /* first: the engine's view of this context */
    pclr_vk_api vk;
    pclr_shaderc_api sc;
    void *sc_lib, *shaderc;          /* shaderc's library and compiler (NULL: not loaded yet, or the caller's compiler) */
    pclr_vk_compiler compiler;
    char vk_name[256], sc_name[256], sc_path[256];
    const char *sc_given_path;
    const pclr_shaderc_api *sc_given;
    int owns_instance, owns_device;
    VkInstance instance;
    VkPhysicalDevice physical;
    VkDevice device;
    uint32_t queue_family;
    VkQueue queue;
    pclr_vk_features features;
    int atomic64;                    /* 64-bit atomics on buffers and shared memory (VK_KHR_shader_atomic_int64): exact sums */
    VkPhysicalDeviceMemoryProperties memory;
    float timestamp_period;          /* ns per tick; 0: no timestamps on the queue */
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkCommandPool pool;
    VkCommandBuffer cmd;             /* the blocking calls' (and the tuner's) */
    int recording;                   /* a blocking reduce has begun cmd (begin slot); complete submits or ends it */
    VkDeviceSize out_bias;           /* pclr_vk_record's out_offset bytes beyond whole states, for its last launch (else 0) */
    VkFence fence;
    VkQueryPool timestamps;
    pclr__vk_mem ctl, result, partials;
    pclr__vk_mem lay_ctl, lay_states; /* a layout's status word and tickets (host-visible, zero between launches); its states (blocking) */
    pclr__vk_mem hist;                /* a histogram's counts (PCLR__HIST_SCRATCH_BYTES): made zero with the context, zero between launches */
    pclr__vk_mem retired[PCLR__VK_RETIRED];
    int retired_count;
    pclr__vk_mem *buffers;           /* pclr_vk_buffer_create's and pclr_buffer_create's, found by their VkBuffer */
    size_t buffer_count, buffer_cap;
};

/* ------------------------------------------------------------ library loading */
#define PCLR__VK_SYM(type, name, params, sym) {sym, offsetof(pclr_vk_api, name), 0},
#define PCLR__VK_OPT(type, name, params, sym) {sym, offsetof(pclr_vk_api, name), 1},
#define PCLR__SHADERC_SYM(ret, name, params, sym) {sym, offsetof(pclr_shaderc_api, name), 0},
static const pclr__symbol pclr__vk_syms[] = {PCLR_VULKAN_ENTRY_POINTS(PCLR__VK_SYM) PCLR_VULKAN_DEVICE_ENTRY_POINTS(PCLR__VK_OPT)};
static const pclr__symbol pclr__shaderc_syms[] = {PCLR_SHADERC_ENTRY_POINTS(PCLR__SHADERC_SYM)};
#undef PCLR__VK_SYM
#undef PCLR__VK_OPT
#undef PCLR__SHADERC_SYM
#ifdef PCLREDUCE_NO_RUNTIME_LINKING
#define PCLR__LINK(type, field, params, sym) api->field = vk##field;
static void pclr__vk_link(void *table) { pclr_vk_api *api = (pclr_vk_api *)table; PCLR_VULKAN_ENTRY_POINTS(PCLR__LINK) }
#undef PCLR__LINK
static void pclr__shaderc_link(void *table) {
    pclr_shaderc_api *api = (pclr_shaderc_api *)table;
    api->CompilerInitialize = (void *(*)(void))shaderc_compiler_initialize;
    api->CompilerRelease = (void (*)(void *))shaderc_compiler_release;
    api->OptionsInitialize = (void *(*)(void))shaderc_compile_options_initialize;
    api->OptionsRelease = (void (*)(void *))shaderc_compile_options_release;
    api->OptionsSetTargetEnv = (void (*)(void *, int, uint32_t))shaderc_compile_options_set_target_env;
    api->OptionsSetOptimizationLevel = (void (*)(void *, int))shaderc_compile_options_set_optimization_level;
    api->CompileIntoSpv = (void *(*)(void *, const char *, size_t, int, const char *, const char *, void *))shaderc_compile_into_spv;
    api->ResultRelease = (void (*)(void *))shaderc_result_release;
    api->ResultGetLength = (size_t (*)(void *))shaderc_result_get_length;
    api->ResultGetBytes = (const char *(*)(void *))shaderc_result_get_bytes;
    api->ResultGetCompilationStatus = (int (*)(void *))shaderc_result_get_compilation_status;
    api->ResultGetErrorMessage = (const char *(*)(void *))shaderc_result_get_error_message;
}
#else
#define pclr__vk_link NULL
#define pclr__shaderc_link NULL
#endif
#ifdef _WIN32
static const char *const pclr__vk_names[] = {"vulkan-1.dll"};
static const char *const pclr__shaderc_names[] = {"shaderc_shared.dll"};
#else
static const char *const pclr__vk_names[] = {"libvulkan.so.1", "libvulkan.so"};
static const char *const pclr__shaderc_names[] = {"libshaderc.so.1", "libshaderc_shared.so.1", "libshaderc.so", "libshaderc_shared.so"};
#endif
static const pclr__library pclr__vk_library = {
    "Vulkan loader", "PCLR_VULKAN_LIBRARY", "desc.vulkan_library", "desc.vulkan_api",
    "install libvulkan1 and a driver (Mesa's lavapipe runs on the CPU), or set PCLR_VULKAN_LIBRARY", pclr__vk_names,
    sizeof pclr__vk_names / sizeof pclr__vk_names[0], pclr__vk_syms, sizeof pclr__vk_syms / sizeof pclr__vk_syms[0], pclr__vk_link, NULL};
static const pclr__library pclr__shaderc_library = {
    "shaderc library", "PCLR_SHADERC_LIBRARY", "desc.shaderc_library", "desc.shaderc_api",
    "install libshaderc1, set PCLR_SHADERC_LIBRARY, or pass desc.compiler", pclr__shaderc_names,
    sizeof pclr__shaderc_names / sizeof pclr__shaderc_names[0], pclr__shaderc_syms,
    sizeof pclr__shaderc_syms / sizeof pclr__shaderc_syms[0], pclr__shaderc_link,
    "Debian 12's libshaderc1 leaves glslang's and SPIRV-Tools' symbols undefined (they ship only as static libraries): "
    "build a loadable one with `make` (build/libshaderc_shared.so) or tests/shaderc.sh, then set PCLR_SHADERC_LIBRARY, "
    "or pass desc.compiler"};

PCLR_API pclr_result pclr_vk_load_api(const char *path, pclr_vk_api *api, char *why, size_t why_cap) {
    return pclr__load_api(&pclr__vk_library, path, api, sizeof *api, why, why_cap);
}
PCLR_API pclr_result pclr_shaderc_load_api(const char *path, pclr_shaderc_api *api, char *why, size_t why_cap) {
    return pclr__load_api(&pclr__shaderc_library, path, api, sizeof *api, why, why_cap);
}

/* ------------------------------------------------------------ errors */
static const char *pclr__vk_code(VkResult r) {
    switch (r) {
    case VK_NOT_READY: return "VK_NOT_READY";
    case VK_TIMEOUT: return "VK_TIMEOUT";
    case VK_INCOMPLETE: return "VK_INCOMPLETE";
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_MEMORY_MAP_FAILED: return "VK_ERROR_MEMORY_MAP_FAILED";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_TOO_MANY_OBJECTS: return "VK_ERROR_TOO_MANY_OBJECTS";
    case VK_ERROR_FORMAT_NOT_SUPPORTED: return "VK_ERROR_FORMAT_NOT_SUPPORTED";
    case VK_ERROR_INVALID_SHADER_NV: return "VK_ERROR_INVALID_SHADER_NV";
    default: return "a Vulkan error";
    }
}
static pclr_result pclr__vk_fail(pclr_vk_context *ctx, VkResult r, const char *call) {
    const pclr_result code = r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY ? PCLR_ERR_OUT_OF_MEMORY
                           : r == VK_ERROR_INCOMPATIBLE_DRIVER ? PCLR_ERR_NO_DRIVER : PCLR_ERR_BACKEND;
    return pclr__fail(&ctx->e, code, "%s failed: %s (code %d)", call, pclr__vk_code(r), (int)r);
}

/* ------------------------------------------------------------ memory */
static int pclr__vk_memory_type(const pclr_vk_context *ctx, uint32_t bits, VkMemoryPropertyFlags want) {
    uint32_t i;
    for (i = 0; i < ctx->memory.memoryTypeCount; ++i)
        if ((bits & (1u << i)) && (ctx->memory.memoryTypes[i].propertyFlags & want) == want) return (int)i;
    return -1;
}

/* A storage buffer; host: 1 for host-visible coherent memory (mapped), 0 for device-local (host-visible when it can be). */
static pclr_result pclr__vk_mem_create(pclr_vk_context *ctx, VkDeviceSize bytes, int host, pclr__vk_mem *m) {
    VkBufferCreateInfo bi;
    VkMemoryRequirements req;
    VkMemoryAllocateInfo ai;
    const VkMemoryPropertyFlags hv = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    VkResult r;
    int type = -1;
    memset(m, 0, sizeof *m);
    if ((VkDeviceSize)bytes > (VkDeviceSize)-1 - 15) /* (rounded up to 16 it would wrap to 0) */
        return pclr__fail(&ctx->e, PCLR_ERR_OUT_OF_MEMORY, "a buffer of %llu bytes: no device has that much memory", (unsigned long long)bytes);
    memset(&bi, 0, sizeof bi);
    bi.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    bi.size = PCLR__VK_ROUNDED(bytes); /* whole words: a shader reads 32-bit words, and a binding's array ends at its last whole one */
    bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    if ((r = ctx->vk.CreateBuffer(ctx->device, &bi, NULL, &m->buffer)) != VK_SUCCESS) return pclr__vk_fail(ctx, r, "vkCreateBuffer");
    ctx->vk.GetBufferMemoryRequirements(ctx->device, m->buffer, &req);
    if (host) type = pclr__vk_memory_type(ctx, req.memoryTypeBits, hv | VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
    if (host && type < 0) type = pclr__vk_memory_type(ctx, req.memoryTypeBits, hv);
    if (!host) type = pclr__vk_memory_type(ctx, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (type < 0) type = pclr__vk_memory_type(ctx, req.memoryTypeBits, host ? hv : 0);
    if (type < 0) {
        ctx->vk.DestroyBuffer(ctx->device, m->buffer, NULL);
        m->buffer = VK_NULL_HANDLE;
        return pclr__fail(&ctx->e, PCLR_ERR_OUT_OF_MEMORY, "no Vulkan memory type for a %s buffer", host ? "host-visible" : "device");
    }
    memset(&ai, 0, sizeof ai);
    ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = (uint32_t)type;
    if ((r = ctx->vk.AllocateMemory(ctx->device, &ai, NULL, &m->memory)) != VK_SUCCESS ||
        (r = ctx->vk.BindBufferMemory(ctx->device, m->buffer, m->memory, 0)) != VK_SUCCESS) {
        if (m->memory) ctx->vk.FreeMemory(ctx->device, m->memory, NULL);
        ctx->vk.DestroyBuffer(ctx->device, m->buffer, NULL);
        memset(m, 0, sizeof *m);
        return pclr__vk_fail(ctx, r, "vkAllocateMemory");
    }
    m->size = bytes;
    if ((ctx->memory.memoryTypes[type].propertyFlags & hv) == hv &&
        ctx->vk.MapMemory(ctx->device, m->memory, 0, VK_WHOLE_SIZE, 0, &m->mapped) != VK_SUCCESS)
        m->mapped = NULL;
    return PCLR_OK;
}
static void pclr__vk_mem_free(pclr_vk_context *ctx, pclr__vk_mem *m) {
    if (m->mapped) ctx->vk.UnmapMemory(ctx->device, m->memory);
    if (m->buffer) ctx->vk.DestroyBuffer(ctx->device, m->buffer, NULL);
    if (m->memory) ctx->vk.FreeMemory(ctx->device, m->memory, NULL);
    memset(m, 0, sizeof *m);
}

/* The blocking calls' command buffer: begin, and submit + wait. */
static pclr_result pclr__vk_begin(pclr_vk_context *ctx) {
    VkCommandBufferBeginInfo bi;
    VkResult r;
    memset(&bi, 0, sizeof bi);
    bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    if ((r = ctx->vk.ResetCommandBuffer(ctx->cmd, 0)) != VK_SUCCESS) return pclr__vk_fail(ctx, r, "vkResetCommandBuffer");
    if ((r = ctx->vk.BeginCommandBuffer(ctx->cmd, &bi)) != VK_SUCCESS) return pclr__vk_fail(ctx, r, "vkBeginCommandBuffer");
    return PCLR_OK;
}
static pclr_result pclr__vk_submit(pclr_vk_context *ctx) {
    VkSubmitInfo si;
    VkResult r;
    if ((r = ctx->vk.EndCommandBuffer(ctx->cmd)) != VK_SUCCESS) return pclr__vk_fail(ctx, r, "vkEndCommandBuffer");
    memset(&si, 0, sizeof si);
    si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &ctx->cmd;
    if ((r = ctx->vk.ResetFences(ctx->device, 1, &ctx->fence)) != VK_SUCCESS) return pclr__vk_fail(ctx, r, "vkResetFences");
    if ((r = ctx->vk.QueueSubmit(ctx->queue, 1, &si, ctx->fence)) != VK_SUCCESS) return pclr__vk_fail(ctx, r, "vkQueueSubmit");
    if ((r = ctx->vk.WaitForFences(ctx->device, 1, &ctx->fence, VK_TRUE, UINT64_MAX)) != VK_SUCCESS)
        return pclr__vk_fail(ctx, r, "vkWaitForFences");
    return PCLR_OK;
}
/* A memory barrier in cmd: src (stage, access) before dst. */
static void pclr__vk_barrier(pclr_vk_context *ctx, VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src,
                             VkPipelineStageFlags dst_stage, VkAccessFlags dst) {
    VkMemoryBarrier b;
    memset(&b, 0, sizeof b);
    b.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    b.srcAccessMask = src;
    b.dstAccessMask = dst;
    ctx->vk.CmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &b, 0, NULL, 0, NULL);
}

/* Copies between host memory and a buffer: mapped directly, or staged through a host-visible buffer. */
static pclr_result pclr__vk_copy(pclr_vk_context *ctx, const pclr__vk_mem *m, VkDeviceSize offset, void *host, VkDeviceSize bytes,
                                 int to_device) {
    pclr__vk_mem stage;
    VkDeviceSize done, chunk;
    pclr_result r = PCLR_OK;
    if (offset > m->size || bytes > m->size - offset)
        return pclr__fail(&ctx->e, PCLR_ERR_SIZE_OVERFLOW, "the copy reaches past the end of the %llu-byte buffer", (unsigned long long)m->size);
    if (m->mapped) {
        if (to_device) memcpy((char *)m->mapped + offset, host, (size_t)bytes);
        else memcpy(host, (const char *)m->mapped + offset, (size_t)bytes);
        return PCLR_OK;
    }
    if ((r = pclr__vk_mem_create(ctx, bytes < PCLR__VK_STAGING_BYTES ? bytes : PCLR__VK_STAGING_BYTES, 1, &stage)) != PCLR_OK) return r;
    if (!stage.mapped) {
        pclr__vk_mem_free(ctx, &stage);
        return pclr__fail(&ctx->e, PCLR_ERR_BACKEND, "vkMapMemory failed for a staging buffer");
    }
    for (done = 0; done < bytes && r == PCLR_OK; done += chunk) {
        VkBufferCopy region;
        chunk = bytes - done < stage.size ? bytes - done : stage.size;
        region.srcOffset = to_device ? 0 : offset + done;
        region.dstOffset = to_device ? offset + done : 0;
        region.size = chunk;
        if (to_device) memcpy(stage.mapped, (const char *)host + done, (size_t)chunk);
        if ((r = pclr__vk_begin(ctx)) != PCLR_OK) break;
        /* earlier compute work on the buffer first */
        pclr__vk_barrier(ctx, ctx->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                         VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
        ctx->vk.CmdCopyBuffer(ctx->cmd, to_device ? stage.buffer : m->buffer, to_device ? m->buffer : stage.buffer, 1, &region);
        pclr__vk_barrier(ctx, ctx->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_HOST_READ_BIT);
        if ((r = pclr__vk_submit(ctx)) != PCLR_OK) break;
        if (!to_device) memcpy((char *)host + done, stage.mapped, (size_t)chunk);
    }
    pclr__vk_mem_free(ctx, &stage);
    return r;
}

/* ------------------------------------------------------------ compiling */
/* NVIDIA GPUs: the CUDA backend's defaults (8 loads in flight, half
   occupancy); every device with subgroup operations: the subgroup step. */
static void pclr__vk_defaults(const pclr__engine *e, pclr_config *c) {
    const pclr_vk_context *ctx = (const pclr_vk_context *)e;
    if (c->variant == PCLR_VARIANT_DEFAULT && ctx->features.subgroup_ops && c->accumulate != PCLR_EXACT) c->variant = PCLR_VARIANT_SHUFFLE;
    if (c->unroll == 0) c->unroll = pclr__gpu_hist_unroll(c);
    if (ctx->features.vendor_id == 0x10DE) {
        if (c->unroll == 0) c->unroll = 8;
        if (c->groups_per_unit == 0) c->groups_per_unit = c->group_size == 0 ? 4 : c->group_size < 1024 ? 1024 / c->group_size : 1;
    }
}

/* Bytes of push constants cfg's kernel takes (its parameters after the fixed ones). */
static uint32_t pclr__vk_push_bytes(const pclr_config *c, const pclr_type *param, int params) {
    uint32_t at = pclr__glsl_args_bytes(c);
    int k;
    for (k = 0; k < params; ++k) {
        const uint32_t sz = param[k] == PCLR_INT64 || param[k] == PCLR_UINT64 || param[k] == PCLR_DOUBLE ? 8 : 4;
        at = (at + sz - 1) / sz * sz + sz;
    }
    return at;
}

static pclr_result pclr__vk_check(const pclr__engine *e, const pclr_config *c, const char **why) {
    const pclr_vk_context *ctx = (const pclr_vk_context *)e;
    pclr__layout l;
    pclr__mtree t;
    pclr__layout_of(c, &l);
    if (pclr__needs_fp64(c) && !ctx->features.float64) {
        *why = "doubles need shaderFloat64, which this Vulkan device lacks (or the engine did not enable)";
        return PCLR_ERR_NO_FP64;
    }
    if (c->accumulate == PCLR_EXACT && !ctx->atomic64) {
        *why = "exact sums add 64-bit integer cells with atomics: they need shaderBufferInt64Atomics and shaderSharedInt64Atomics "
               "(VK_KHR_shader_atomic_int64), which this Vulkan device lacks";
        return PCLR_ERR_NO_INT64_ATOMICS;
    }
    if (c->accumulate == PCLR_EXACT && (uint64_t)c->group_size * 16 + PCLR__EXACT_SCRATCH_BYTES + 64 > ctx->features.max_shared_bytes) {
        *why = "the exact sum's shared memory (group size x 16 bytes, and the group's cells) is above the device's maxComputeSharedMemorySize";
        return PCLR_ERR_UNSUPPORTED_BY_DEVICE;
    }
    if (c->variant == PCLR_VARIANT_SHUFFLE && !ctx->features.subgroup_ops) {
        *why = "the shuffle variant needs subgroup arithmetic and relative shuffles in compute shaders";
        return PCLR_ERR_UNSUPPORTED_BY_DEVICE;
    }
    if ((c->op == PCLR_HISTOGRAM ? pclr__hist_local_bytes(c) : (uint64_t)c->group_size * l.size + 4) > ctx->features.max_shared_bytes) {
        *why = "the group's shared memory (group size x the op's state) is above the device's maxComputeSharedMemorySize";
        return PCLR_ERR_UNSUPPORTED_BY_DEVICE;
    }
#ifndef PCLREDUCE_NO_LAYOUTS
    if (c->lanes && c->lanes < c->group_size && pclr__rows_staged(c, c->lanes)) { /* a staged program's tile beside lds (pclr__gen_layout) */
        const uint64_t es = pclr_type_size(c->type) < 4 ? 4 : pclr_type_size(c->type), tile = (uint64_t)c->group_size * pclr__stage_per(c);
        if ((uint64_t)c->group_size * l.size + (tile + tile / 32) * es > ctx->features.max_shared_bytes) {
            *why = "a tile of short rows and the group's states need more shared memory than the device's maxComputeSharedMemorySize";
            return PCLR_ERR_UNSUPPORTED_BY_DEVICE;
        }
    }
#endif
    if (pclr__has_map(c) && pclr__map_parse(c, &t, NULL, 0) == PCLR_OK &&
        pclr__vk_push_bytes(c, t.param, t.params) > ctx->features.max_push_constants) {
        *why = "the map's parameters do not fit in the device's push constants (maxPushConstantsSize)";
        return PCLR_ERR_UNSUPPORTED_BY_DEVICE;
    }
    return PCLR_OK;
}

/* GLSL to SPIR-V with the caller's compiler or shaderc (its table loaded by pclr__vk_shaderc); the log to the engine. */
static pclr_result pclr__vk_compile(pclr__engine *e, pclr_shaderc_api *sc, void **shaderc, const pclr_vk_compiler *cb,
                                    const char *src, uint32_t **words, size_t *bytes) {
    const uint32_t *code = NULL;
    const char *log = NULL;
    size_t size = 0;
    *words = NULL;
    if (cb->compile) {
        if (cb->compile(cb->user, src, strlen(src), &code, &size, &log) != 0 || !code || !size || size % 4) {
            pclr__set_log(e, log ? log : "", log ? strlen(log) : 0);
            if (cb->release) cb->release(cb->user);
            return pclr__fail(e, PCLR_ERR_BUILD_FAILED, "the caller's compiler (desc.compiler) failed; see the build log (pclr_vk_build_log, pclr_build_log)");
        }
        pclr__set_log(e, log ? log : "", log ? strlen(log) : 0);
        if ((*words = (uint32_t *)pclr__alloc(e, size)) != NULL) memcpy(*words, code, size);
        if (cb->release) cb->release(cb->user);
    } else {
        void *opts, *res;
        int status;
        if (!*shaderc && !(*shaderc = sc->CompilerInitialize())) return pclr__fail(e, PCLR_ERR_OUT_OF_MEMORY, "shaderc_compiler_initialize failed");
        if (!(opts = sc->OptionsInitialize())) return pclr__fail(e, PCLR_ERR_OUT_OF_MEMORY, "shaderc_compile_options_initialize failed");
        sc->OptionsSetTargetEnv(opts, 0 /* vulkan */, (1u << 22) | (1u << 12) /* 1.1 */);
        sc->OptionsSetOptimizationLevel(opts, 2 /* performance */);
        res = sc->CompileIntoSpv(*shaderc, src, strlen(src), 2 /* compute */, "pclreduce.comp", "main", opts);
        sc->OptionsRelease(opts);
        if (!res) return pclr__fail(e, PCLR_ERR_OUT_OF_MEMORY, "shaderc_compile_into_spv returned no result");
        status = sc->ResultGetCompilationStatus(res);
        log = sc->ResultGetErrorMessage(res);
        pclr__set_log(e, log ? log : "", log ? strlen(log) : 0);
        size = sc->ResultGetLength(res);
        if (status != 0 || !size || size % 4) {
            sc->ResultRelease(res);
            return pclr__fail(e, PCLR_ERR_BUILD_FAILED, "shaderc_compile_into_spv failed (status %d); see the build log (pclr_vk_build_log, pclr_build_log)", status);
        }
        if ((*words = (uint32_t *)pclr__alloc(e, size)) != NULL) memcpy(*words, sc->ResultGetBytes(res), size);
        sc->ResultRelease(res);
    }
    if (!*words) return pclr__fail(e, PCLR_ERR_OUT_OF_MEMORY, "out of host memory for %lu bytes of SPIR-V", (unsigned long)size);
    *bytes = size;
    return PCLR_OK;
}

/* shaderc's table (none with the caller's compiler): loaded at create; again at a build when that failed
   (desc.allow_no_compiler), which then fails with the same sentence. */
static pclr_result pclr__vk_shaderc(pclr_vk_context *ctx) {
    char why[512];
    pclr_result r;
    if (ctx->compiler.compile || ctx->sc.CompileIntoSpv) return PCLR_OK;
    if ((r = pclr__library_open(&pclr__shaderc_library, ctx->sc_given, ctx->sc_given_path, pclr__shaderc_names,
                                pclr__shaderc_library.count, &ctx->sc, sizeof ctx->sc, &ctx->sc_lib, ctx->sc_name, sizeof ctx->sc_name,
                                why, sizeof why)) != PCLR_OK) {
        memset(&ctx->sc, 0, sizeof ctx->sc);
        return pclr__fail(&ctx->e, r, "%s", why);
    }
    return PCLR_OK;
}

/* Without the execution mode SignedZeroInfNanPreserve, Vulkan lets a shader
   drop inf, NaN and the sign of zero (x - x may give 0 for x = inf). The
   kernels get it where the device keeps them (f->preserve32, preserve64:
   shaderSignedZeroInfNanPreserveFloat32/64), for 32-bit floats and, in a
   module with Float64, 64-bit ones. It goes into the SPIR-V here, at the
   pipeline, not into the GLSL: it is the device's fact (the source and the
   disk cache stay device-neutral), any GLSL compiler's output takes it, and
   glslang's spirv_execution_mode keeps one mode of a kind (32 or 64, not
   both). The copy (e->alloc) has OpCapability SignedZeroInfNanPreserve and
   OpExtension "SPV_KHR_float_controls" after the capabilities, and the modes
   after the entry point. *out NULL: nothing to add, or words it does not
   parse (the driver judges those as they are). */
static pclr_result pclr__vk_preserve(pclr_vk_context *ctx, const uint32_t *w, size_t bytes, uint32_t **out, size_t *out_bytes) {
    static const char ext[24] = "SPV_KHR_float_controls"; /* 22 characters and a NUL: 6 words */
    uint32_t add[32], xw[6];
    const size_t n = bytes / 4;
    size_t i = 5, caps = 0, eps = 0, front = 0, len = 0, k;
    uint32_t entry = 0;
    int f64 = 0, has_cap = 0, has_ext = 0;
    *out = NULL;
    *out_bytes = bytes;
    for (k = 0; k < 6; ++k) /* four characters a word, the first in the lowest byte */
        xw[k] = (uint32_t)(unsigned char)ext[4 * k] | (uint32_t)(unsigned char)ext[4 * k + 1] << 8 |
                (uint32_t)(unsigned char)ext[4 * k + 2] << 16 | (uint32_t)(unsigned char)ext[4 * k + 3] << 24;
    while (i < n) {
        const uint32_t wc = w[i] >> 16, op = w[i] & 0xffffu;
        if (wc == 0 || wc > n - i) return PCLR_OK;
        if (op == 17 /* OpCapability */ && wc == 2) { caps = i + wc; f64 |= w[i + 1] == 10 /* Float64 */; has_cap |= w[i + 1] == 4466; }
        else if (op == 10 /* OpExtension */ && wc == 7 && !memcmp(&w[i + 1], xw, sizeof xw)) has_ext = 1;
        else if (op == 15 /* OpEntryPoint */ && wc >= 3) { if (eps) return PCLR_OK; entry = w[i + 2]; eps = i + wc; }
        else if (op == 16 /* OpExecutionMode */ && wc >= 3 && w[i + 2] == 4461) return PCLR_OK; /* has one already */
        else if (op == 54 /* OpFunction */) break;
        i += wc;
    }
    if (!caps || !eps || eps < caps || !(ctx->features.preserve32 || (f64 && ctx->features.preserve64))) return PCLR_OK;
    if (!has_cap) { add[len++] = 2u << 16 | 17u; add[len++] = 4466; }
    if (!has_ext) { add[len++] = 7u << 16 | 10u; memcpy(add + len, xw, sizeof xw); len += 6; }
    front = len;
    for (k = 0; k < 2; ++k)
        if (k ? f64 && ctx->features.preserve64 : ctx->features.preserve32) {
            add[len++] = 4u << 16 | 16u; add[len++] = entry; add[len++] = 4461; add[len++] = k ? 64 : 32;
        }
    if (!(*out = (uint32_t *)pclr__alloc(&ctx->e, bytes + 4 * len)))
        return pclr__fail(&ctx->e, PCLR_ERR_OUT_OF_MEMORY, "out of host memory for %lu bytes of SPIR-V", (unsigned long)(bytes + 4 * len));
    memcpy(*out, w, 4 * caps);
    memcpy(*out + caps, add, 4 * front);
    memcpy(*out + caps + front, w + caps, 4 * (eps - caps));
    memcpy(*out + eps + front, add + front, 4 * (len - front));
    memcpy(*out + eps + len, w + eps, 4 * (n - eps));
    *out_bytes = bytes + 4 * len;
    return PCLR_OK;
}

static pclr_result pclr__vk_pipeline(pclr_vk_context *ctx, const uint32_t *words, size_t bytes, void **program) {
    VkShaderModuleCreateInfo mi;
    VkComputePipelineCreateInfo pi;
    VkShaderModule module = VK_NULL_HANDLE;
    VkPipeline pipeline = VK_NULL_HANDLE;
    VkResult r;
    uint32_t *patched;
    size_t size;
    pclr_result pr;
    if (bytes < 20 || bytes % 4 || words[0] != 0x07230203u)
        return pclr__fail(&ctx->e, PCLR_ERR_BUILD_FAILED, "not SPIR-V (%lu bytes, no magic number)", (unsigned long)bytes);
    if ((pr = pclr__vk_preserve(ctx, words, bytes, &patched, &size)) != PCLR_OK) return pr;
    memset(&mi, 0, sizeof mi);
    mi.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    mi.codeSize = size;
    mi.pCode = patched ? patched : words;
    r = ctx->vk.CreateShaderModule(ctx->device, &mi, NULL, &module);
    pclr__free(&ctx->e, patched);
    if (r != VK_SUCCESS) {
        pclr__vk_fail(ctx, r, "vkCreateShaderModule");
        return r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY ? PCLR_ERR_OUT_OF_MEMORY : PCLR_ERR_BUILD_FAILED;
    }
    memset(&pi, 0, sizeof pi);
    pi.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
    pi.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    pi.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    pi.stage.module = module;
    pi.stage.pName = "main";
    pi.layout = ctx->layout;
    r = ctx->vk.CreateComputePipelines(ctx->device, VK_NULL_HANDLE, 1, &pi, NULL, &pipeline);
    ctx->vk.DestroyShaderModule(ctx->device, module, NULL);
    if (r != VK_SUCCESS) {
        pclr__vk_fail(ctx, r, "vkCreateComputePipelines");
        return r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY ? PCLR_ERR_OUT_OF_MEMORY : PCLR_ERR_BUILD_FAILED;
    }
    if (!(*program = pclr__alloc(&ctx->e, sizeof pipeline))) {
        ctx->vk.DestroyPipeline(ctx->device, pipeline, NULL);
        return pclr__fail(&ctx->e, PCLR_ERR_OUT_OF_MEMORY, "out of host memory for a pipeline");
    }
    memcpy(*program, &pipeline, sizeof pipeline);
    return PCLR_OK;
}

static pclr_result pclr__vk_build(pclr__engine *e, const pclr_config *c, const char *src, const char *opts, const void *bin,
                                  size_t bin_size, void **program, void **keep, size_t *keep_size) {
    pclr_vk_context *ctx = (pclr_vk_context *)e;
    uint32_t *words = NULL;
    size_t size = 0;
    pclr_result r;
    (void)c; (void)opts;
    if (bin) return pclr__vk_pipeline(ctx, (const uint32_t *)bin, bin_size, program);
    if ((r = pclr__vk_shaderc(ctx)) != PCLR_OK) return r;
    if ((r = pclr__vk_compile(e, &ctx->sc, &ctx->shaderc, &ctx->compiler, src, &words, &size)) != PCLR_OK) return r;
    r = pclr__vk_pipeline(ctx, words, size, program);
    if (r == PCLR_OK && keep) { *keep = words; *keep_size = size; words = NULL; }
    pclr__free(e, words);
    return r;
}
static void pclr__vk_release(pclr__engine *e, void *program) {
    pclr_vk_context *ctx = (pclr_vk_context *)e;
    VkPipeline p;
    memcpy(&p, program, sizeof p);
    ctx->vk.DestroyPipeline(ctx->device, p, NULL);
    pclr__free(e, program);
}

/* ------------------------------------------------------------ lifecycle */
static int pclr__vk_has_extension(pclr_vk_context *ctx, VkPhysicalDevice pd, const char *name) {
    VkExtensionProperties ext[512];
    uint32_t n = 512, i;
    if (ctx->vk.EnumerateDeviceExtensionProperties(pd, NULL, &n, ext) < 0) return 0;
    for (i = 0; i < n; ++i) if (!strcmp(ext[i].extensionName, name)) return 1;
    return 0;
}
static const char *pclr__vk_type_name(VkPhysicalDeviceType t) {
    return t == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ? "discrete" : t == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ? "integrated"
         : t == VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU ? "virtual" : t == VK_PHYSICAL_DEVICE_TYPE_CPU ? "CPU" : "other";
}

/* An instance of the context's own (Vulkan 1.1), and its physical devices. */
static pclr_result pclr__vk_instance(pclr_vk_context *ctx, VkPhysicalDevice *devices, uint32_t *count) {
    VkApplicationInfo app;
    VkInstanceCreateInfo ci;
    VkResult r;
    memset(&app, 0, sizeof app);
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.pApplicationName = "pclreduce";
    app.apiVersion = VK_MAKE_VERSION(1, 1, 0);
    memset(&ci, 0, sizeof ci);
    ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    ci.pApplicationInfo = &app;
    if ((r = ctx->vk.CreateInstance(&ci, NULL, &ctx->instance)) != VK_SUCCESS) {
        ctx->instance = VK_NULL_HANDLE;
        pclr__vk_fail(ctx, r, "vkCreateInstance");
        return PCLR_ERR_NO_DEVICE;
    }
    ctx->owns_instance = 1;
    if ((r = ctx->vk.EnumeratePhysicalDevices(ctx->instance, count, devices)) < 0) {
        pclr__vk_fail(ctx, r, "vkEnumeratePhysicalDevices");
        return PCLR_ERR_NO_DEVICE;
    }
    if (!*count) return pclr__fail(&ctx->e, PCLR_ERR_NO_DEVICE, "no Vulkan device (the loader found no driver that works here)");
    return PCLR_OK;
}

/* The device facts the backend needs, from the physical device (features: the enabled ones, or NULL: the supported). */
static pclr_result pclr__vk_facts(pclr_vk_context *ctx, const VkPhysicalDeviceFeatures *enabled) {
    pclr_vk_features *f = &ctx->features;
    VkPhysicalDeviceProperties2 p2;
    VkPhysicalDeviceSubgroupProperties sg;
    VkPhysicalDeviceShaderSMBuiltinsPropertiesNV sm;
    VkPhysicalDevicePushDescriptorPropertiesKHR pd;
    VkPhysicalDeviceFloatControlsPropertiesKHR fc;
    VkPhysicalDeviceFeatures feat;
    VkQueueFamilyProperties fam[64];
    uint32_t nfam = 64;
    const int nv_sm = pclr__vk_has_extension(ctx, ctx->physical, "VK_NV_shader_sm_builtins");
    const int has_fc = pclr__vk_has_extension(ctx, ctx->physical, "VK_KHR_shader_float_controls");
    memset(&p2, 0, sizeof p2);
    memset(&fc, 0, sizeof fc);
    memset(&sg, 0, sizeof sg);
    memset(&sm, 0, sizeof sm);
    memset(&pd, 0, sizeof pd);
    p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    sg.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
    sm.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV;
    pd.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PUSH_DESCRIPTOR_PROPERTIES_KHR;
    fc.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES_KHR;
    p2.pNext = &sg;
    sg.pNext = &pd;
    pd.pNext = nv_sm ? (void *)&sm : NULL;
    if (has_fc) { fc.pNext = pd.pNext; pd.pNext = &fc; }
    ctx->vk.GetPhysicalDeviceProperties(ctx->physical, &p2.properties);
    if (p2.properties.apiVersion < VK_MAKE_VERSION(1, 1, 0))
        return pclr__fail(&ctx->e, PCLR_ERR_UNSUPPORTED_BY_DEVICE, "%s supports Vulkan %u.%u only (pclreduce needs 1.1)",
                          p2.properties.deviceName, VK_VERSION_MAJOR(p2.properties.apiVersion), VK_VERSION_MINOR(p2.properties.apiVersion));
    ctx->vk.GetPhysicalDeviceProperties2(ctx->physical, &p2);
    ctx->vk.GetPhysicalDeviceFeatures(ctx->physical, &feat);
    if (enabled) feat = *enabled;
    ctx->vk.GetPhysicalDeviceMemoryProperties(ctx->physical, &ctx->memory);
    pclr__copy(f->device_name, sizeof f->device_name, p2.properties.deviceName);
    f->vendor_id = p2.properties.vendorID;
    f->api_version = p2.properties.apiVersion;
    f->driver_version = p2.properties.driverVersion;
    f->type = p2.properties.deviceType;
    f->max_group_size = p2.properties.limits.maxComputeWorkGroupInvocations < p2.properties.limits.maxComputeWorkGroupSize[0]
                      ? p2.properties.limits.maxComputeWorkGroupInvocations : p2.properties.limits.maxComputeWorkGroupSize[0];
    f->subgroup_size = sg.subgroupSize;
    f->subgroup_ops = (sg.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                      (sg.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT) &&
                      (sg.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT) && sg.subgroupSize >= 4;
    f->int64 = feat.shaderInt64 == VK_TRUE;
    f->float64 = feat.shaderFloat64 == VK_TRUE;
    f->preserve32 = fc.shaderSignedZeroInfNanPreserveFloat32 == VK_TRUE;
    f->preserve64 = fc.shaderSignedZeroInfNanPreserveFloat64 == VK_TRUE && f->float64;
    f->max_storage_range = p2.properties.limits.maxStorageBufferRange;
    f->max_push_constants = p2.properties.limits.maxPushConstantsSize;
    f->max_shared_bytes = p2.properties.limits.maxComputeSharedMemorySize;
    f->storage_alignment = (uint32_t)p2.properties.limits.minStorageBufferOffsetAlignment;
    if (f->storage_alignment < 16) f->storage_alignment = 16; /* the kernel's loads line up with the binding's start */
    /* Vulkan does not count compute units: NVIDIA's SM count where the driver tells it, else a guess by kind */
    f->compute_units = nv_sm && sm.shaderSMCount ? sm.shaderSMCount : f->type == VK_PHYSICAL_DEVICE_TYPE_CPU ? 8
                     : f->type == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ? 64 : 16;
    ctx->vk.GetPhysicalDeviceQueueFamilyProperties(ctx->physical, &nfam, fam);
    ctx->timestamp_period = p2.properties.limits.timestampComputeAndGraphics && ctx->queue_family < nfam &&
                            fam[ctx->queue_family].timestampValidBits ? p2.properties.limits.timestampPeriod : 0.0f;
    { /* 64-bit atomics (the exact sum's cells): VK_KHR_shader_atomic_int64's features, through vkGetPhysicalDeviceFeatures2
         (Vulkan 1.1); a program's device is taken to have enabled what its physical device supports */
        PFN_vkGetPhysicalDeviceFeatures2 features2 =
            (PFN_vkGetPhysicalDeviceFeatures2)ctx->vk.GetInstanceProcAddr(ctx->instance, "vkGetPhysicalDeviceFeatures2");
        VkPhysicalDeviceFeatures2 pf;
        VkPhysicalDeviceShaderAtomicInt64FeaturesKHR a64;
        memset(&pf, 0, sizeof pf);
        memset(&a64, 0, sizeof a64);
        pf.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
        a64.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES_KHR;
        pf.pNext = &a64;
        ctx->atomic64 = 0;
        if (features2 && (f->api_version >= VK_MAKE_VERSION(1, 2, 0) || pclr__vk_has_extension(ctx, ctx->physical, "VK_KHR_shader_atomic_int64"))) {
            features2(ctx->physical, &pf);
            ctx->atomic64 = a64.shaderBufferInt64Atomics == VK_TRUE && a64.shaderSharedInt64Atomics == VK_TRUE;
        }
    }
    if (!f->int64)
        return pclr__fail(&ctx->e, PCLR_ERR_UNSUPPORTED_BY_DEVICE, "%s lacks shaderInt64 (the kernels count in 64 bits)%s",
                          f->device_name, enabled ? ", or the engine did not enable it" : "");
    if (!pclr__vk_has_extension(ctx, ctx->physical, "VK_KHR_push_descriptor"))
        return pclr__fail(&ctx->e, PCLR_ERR_UNSUPPORTED_BY_DEVICE, "%s lacks VK_KHR_push_descriptor (the kernels' buffers are pushed per dispatch)",
                          f->device_name);
    return PCLR_OK;
}

/* The context's own device on ctx->physical: a compute queue, int64/fp64 when supported, push descriptors. */
static pclr_result pclr__vk_own_device(pclr_vk_context *ctx) {
    VkQueueFamilyProperties fam[64];
    VkDeviceQueueCreateInfo qi;
    VkDeviceCreateInfo di;
    VkPhysicalDeviceFeatures supported, want;
    VkPhysicalDeviceShaderAtomicInt64FeaturesKHR a64;
    const char *ext[3];
    uint32_t exts = 0;
    const float priority = 1.0f;
    uint32_t n = 64, i, best = UINT32_MAX;
    VkResult r;
    ctx->vk.GetPhysicalDeviceQueueFamilyProperties(ctx->physical, &n, fam);
    for (i = 0; i < n; ++i) /* a compute-only family first (no graphics work shares it) */
        if ((fam[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && (best == UINT32_MAX || !(fam[i].queueFlags & VK_QUEUE_GRAPHICS_BIT))) best = i;
    if (best == UINT32_MAX) return pclr__fail(&ctx->e, PCLR_ERR_NO_DEVICE, "the Vulkan device has no compute queue");
    ctx->queue_family = best;
    ctx->vk.GetPhysicalDeviceFeatures(ctx->physical, &supported);
    memset(&want, 0, sizeof want);
    want.shaderInt64 = supported.shaderInt64;
    want.shaderFloat64 = supported.shaderFloat64;
    memset(&qi, 0, sizeof qi);
    qi.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    qi.queueFamilyIndex = best;
    qi.queueCount = 1;
    qi.pQueuePriorities = &priority;
    memset(&di, 0, sizeof di);
    di.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    di.queueCreateInfoCount = 1;
    di.pQueueCreateInfos = &qi;
    di.pEnabledFeatures = &want;
    if (pclr__vk_has_extension(ctx, ctx->physical, "VK_KHR_push_descriptor")) ext[exts++] = "VK_KHR_push_descriptor";
    memset(&a64, 0, sizeof a64);
    if (ctx->atomic64) { /* the exact sum's 64-bit atomics on buffers and shared memory (found in pclr__vk_facts) */
        a64.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES_KHR;
        a64.shaderBufferInt64Atomics = VK_TRUE;
        a64.shaderSharedInt64Atomics = VK_TRUE;
        di.pNext = &a64;
        if (pclr__vk_has_extension(ctx, ctx->physical, "VK_KHR_shader_atomic_int64")) ext[exts++] = "VK_KHR_shader_atomic_int64";
    }
    /* the kernels' SignedZeroInfNanPreserve (the instance is Vulkan 1.1: the extension, not 1.2 core) */
    if (pclr__vk_has_extension(ctx, ctx->physical, "VK_KHR_shader_float_controls")) ext[exts++] = "VK_KHR_shader_float_controls";
    else ctx->features.preserve32 = ctx->features.preserve64 = 0;
    di.enabledExtensionCount = exts;
    di.ppEnabledExtensionNames = ext;
    if ((r = ctx->vk.CreateDevice(ctx->physical, &di, NULL, &ctx->device)) != VK_SUCCESS) {
        ctx->device = VK_NULL_HANDLE;
        return pclr__vk_fail(ctx, r, "vkCreateDevice");
    }
    ctx->owns_device = 1;
    return PCLR_OK;
}

/* The device desc names (the rule above pclr_vk_desc), on an instance of the context's own: number k, or the best
   kind (discrete, integrated, virtual, CPU) among those with int64 and push descriptors. */
static pclr_result pclr__vk_pick(pclr_vk_context *ctx, const pclr_vk_desc *d) {
    VkPhysicalDevice devices[32];
    uint32_t count = 32, i;
    int best = -1, best_rank = 99;
    pclr_result r;
    if (d->device_number < 0)
        return pclr__fail(&ctx->e, PCLR_ERR_NO_DEVICE, "device number %d (desc.device_number / pclr_desc.device) is not a device: 0 = the best, k > 0 = device k - 1",
                          d->device_number);
    if ((r = pclr__vk_instance(ctx, devices, &count)) != PCLR_OK) return r;
    if (d->device_number > 0) {
        if ((uint32_t)d->device_number > count)
            return pclr__fail(&ctx->e, PCLR_ERR_NO_DEVICE, "no Vulkan device %d (device number %d; there are %u)", d->device_number - 1,
                              d->device_number, count);
        ctx->physical = devices[d->device_number - 1];
        return PCLR_OK;
    }
    if (d->device_index > 0) { /* deprecated spelling, 0-based */
        if ((uint32_t)d->device_index >= count)
            return pclr__fail(&ctx->e, PCLR_ERR_NO_DEVICE, "no Vulkan device %d (desc.device_index, deprecated: 0-based; there are %u)",
                              d->device_index, count);
        ctx->physical = devices[d->device_index];
        return PCLR_OK;
    }
    for (i = 0; i < count; ++i) {
        VkPhysicalDeviceProperties p;
        VkPhysicalDeviceFeatures f;
        int rank;
        ctx->vk.GetPhysicalDeviceProperties(devices[i], &p);
        ctx->vk.GetPhysicalDeviceFeatures(devices[i], &f);
        rank = p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ? 0 : p.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ? 1
             : p.deviceType == VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU ? 2 : 3;
        if (!f.shaderInt64 || p.apiVersion < VK_MAKE_VERSION(1, 1, 0) || !pclr__vk_has_extension(ctx, devices[i], "VK_KHR_push_descriptor")) rank += 10;
        if (rank < best_rank) { best_rank = rank; best = (int)i; }
    }
    ctx->physical = devices[best];
    return PCLR_OK;
}

/* Layouts, command pool and buffer, fence, scratch: what every context makes on its device. */
static pclr_result pclr__vk_objects(pclr_vk_context *ctx) {
    VkDescriptorSetLayoutBinding b[PCLR__VK_BINDINGS];
    VkDescriptorSetLayoutCreateInfo si;
    VkPushConstantRange pc;
    VkPipelineLayoutCreateInfo li;
    VkCommandPoolCreateInfo ci;
    VkCommandBufferAllocateInfo ai;
    VkFenceCreateInfo fi;
    uint32_t ctl[PCLR__VK_CTL_BYTES / 4];
    VkResult r;
    pclr_result pr;
    int i;
    if (!ctx->vk.CmdPushDescriptorSetKHR) {
        PFN_vkVoidFunction f = ctx->vk.GetDeviceProcAddr(ctx->device, "vkCmdPushDescriptorSetKHR");
        if (!f) f = ctx->vk.GetDeviceProcAddr(ctx->device, "vkCmdPushDescriptorSet"); /* core in 1.4 */
        if (!f) return pclr__fail(&ctx->e, PCLR_ERR_UNSUPPORTED_BY_DEVICE, "vkCmdPushDescriptorSetKHR is missing: enable VK_KHR_push_descriptor on the device");
        memcpy(&ctx->vk.CmdPushDescriptorSetKHR, &f, sizeof f);
    }
    memset(b, 0, sizeof b);
    for (i = 0; i < PCLR__VK_BINDINGS; ++i) {
        b[i].binding = (uint32_t)i;
        b[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        b[i].descriptorCount = 1;
        b[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    memset(&si, 0, sizeof si);
    si.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    si.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
    si.bindingCount = PCLR__VK_BINDINGS;
    si.pBindings = b;
    if ((r = ctx->vk.CreateDescriptorSetLayout(ctx->device, &si, NULL, &ctx->set_layout)) != VK_SUCCESS)
        return pclr__vk_fail(ctx, r, "vkCreateDescriptorSetLayout");
    pc.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    pc.offset = 0;
    pc.size = ctx->features.max_push_constants < 256 ? ctx->features.max_push_constants : 256;
    memset(&li, 0, sizeof li);
    li.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    li.setLayoutCount = 1;
    li.pSetLayouts = &ctx->set_layout;
    li.pushConstantRangeCount = 1;
    li.pPushConstantRanges = &pc;
    if ((r = ctx->vk.CreatePipelineLayout(ctx->device, &li, NULL, &ctx->layout)) != VK_SUCCESS) return pclr__vk_fail(ctx, r, "vkCreatePipelineLayout");
    memset(&ci, 0, sizeof ci);
    ci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    ci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    ci.queueFamilyIndex = ctx->queue_family;
    if ((r = ctx->vk.CreateCommandPool(ctx->device, &ci, NULL, &ctx->pool)) != VK_SUCCESS) return pclr__vk_fail(ctx, r, "vkCreateCommandPool");
    memset(&ai, 0, sizeof ai);
    ai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    ai.commandPool = ctx->pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    if ((r = ctx->vk.AllocateCommandBuffers(ctx->device, &ai, &ctx->cmd)) != VK_SUCCESS) return pclr__vk_fail(ctx, r, "vkAllocateCommandBuffers");
    memset(&fi, 0, sizeof fi);
    fi.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    if ((r = ctx->vk.CreateFence(ctx->device, &fi, NULL, &ctx->fence)) != VK_SUCCESS) return pclr__vk_fail(ctx, r, "vkCreateFence");
    if ((pr = pclr__vk_mem_create(ctx, PCLR__VK_RESULT_BYTES, 1, &ctx->result)) != PCLR_OK) return pr;
    if (!ctx->result.mapped) return pclr__fail(&ctx->e, PCLR_ERR_BACKEND, "vkMapMemory failed for the result buffer");
    if ((pr = pclr__vk_mem_create(ctx, PCLR__VK_CTL_BYTES, 0, &ctx->ctl)) != PCLR_OK) return pr;
    memset(ctl, 0, sizeof ctl);
    for (i = 0; i < 6; ++i) pclr_identity(i < 3 ? PCLR_UINT : PCLR_INT, (pclr_op)(PCLR_SUM + i % 3), &ctl[PCLR__VK_CTL_SLOTS + i]);
    if ((pr = pclr__vk_copy(ctx, &ctx->ctl, 0, ctl, sizeof ctl, 1)) != PCLR_OK) return pr;
    { /* a histogram's counts, zero (made here: a reduce records into a command buffer that may be begun) */
        void *zeros = pclr__alloc(&ctx->e, PCLR__HIST_SCRATCH_BYTES);
        if (!zeros) return pclr__fail(&ctx->e, PCLR_ERR_OUT_OF_MEMORY, "out of host memory (a histogram's counts)");
        memset(zeros, 0, PCLR__HIST_SCRATCH_BYTES);
        if ((pr = pclr__vk_mem_create(ctx, PCLR__HIST_SCRATCH_BYTES, 0, &ctx->hist)) == PCLR_OK)
            pr = pclr__vk_copy(ctx, &ctx->hist, 0, zeros, PCLR__HIST_SCRATCH_BYTES, 1);
        pclr__free(&ctx->e, zeros);
        return pr;
    }
}

static pclr_result pclr__vk_init(pclr_vk_context *ctx, const pclr_vk_desc *d) {
    void *lib;
    char why[512];
    pclr_result r;
    const int given = d->instance || d->physical_device || d->device;
    if ((r = pclr__library_open(&pclr__vk_library, d->vulkan_api, d->vulkan_library, pclr__vk_names, pclr__vk_library.count, &ctx->vk,
                                sizeof ctx->vk, &lib, ctx->vk_name, sizeof ctx->vk_name, why, sizeof why)) != PCLR_OK)
        return pclr__fail(&ctx->e, r, "%s", why); /* the loader stays loaded, as if linked */
    ctx->compiler = d->compiler;
    ctx->sc_given = d->shaderc_api;
    ctx->sc_given_path = d->shaderc_library;
    if (given) {
        if (!d->instance || !d->physical_device || !d->device)
            return pclr__fail(&ctx->e, PCLR_ERR_NULL_POINTER, "desc.instance, physical_device and device go together (all or none)");
        ctx->instance = d->instance;
        ctx->physical = d->physical_device;
        ctx->device = d->device;
        ctx->queue_family = d->queue_family;
        ctx->queue = d->queue;
    } else if ((r = pclr__vk_pick(ctx, d)) != PCLR_OK) {
        return r;
    }
    if ((r = pclr__vk_facts(ctx, given ? d->enabled_features : NULL)) != PCLR_OK) return r;
    /* the engine's device: float controls only where they are core (Vulkan 1.2; whether it enabled the extension is not known) */
    if (given && ctx->features.api_version < VK_MAKE_VERSION(1, 2, 0)) ctx->features.preserve32 = ctx->features.preserve64 = 0;
    if (!given && (r = pclr__vk_own_device(ctx)) != PCLR_OK) return r;
    if (!given) { /* the family is known now: timestamps on it */
        VkQueueFamilyProperties fam[64];
        uint32_t n = 64;
        ctx->vk.GetPhysicalDeviceQueueFamilyProperties(ctx->physical, &n, fam);
        if (ctx->queue_family >= n || !fam[ctx->queue_family].timestampValidBits) ctx->timestamp_period = 0.0f;
    }
    if (!ctx->queue) ctx->vk.GetDeviceQueue(ctx->device, ctx->queue_family, 0, &ctx->queue);
    ctx->features.queue_family = ctx->queue_family;
    if ((r = pclr__vk_objects(ctx)) != PCLR_OK) return r;
    /* the compiler now, not at the first uncached build (where the device is known: no device is the answer before no shaderc) */
    if ((r = pclr__vk_shaderc(ctx)) != PCLR_OK && !d->allow_no_compiler) return r;
    /* the engine's view */
    pclr__copy(ctx->e.device, sizeof ctx->e.device, ctx->features.device_name);
    snprintf(ctx->e.driver, sizeof ctx->e.driver, "%u", ctx->features.driver_version);
    snprintf(ctx->e.build_id, sizeof ctx->e.build_id, "vulkan SPIR-V 1.3 (GLSL 4.50 via %s)", d->compiler.compile ? "the caller's compiler" : "shaderc");
    ctx->e.facts.compute_units = ctx->features.compute_units;
    ctx->e.facts.max_group_size = ctx->features.max_group_size;
    ctx->e.cache_bytes = (uint64_t)64 << 20; /* Vulkan does not tell the last-level cache: the tuner assumes 64 MiB */
    pclr__engine_files(&ctx->e, d->cache_dir, d->no_disk_cache, d->tune_file, d->no_tune_file);
    return PCLR_OK;
}

PCLR_API void pclr_vk_destroy(pclr_vk_context *ctx) {
    pclr_allocator a;
    size_t i;
    int k;
    if (!ctx) return;
    if (ctx->device) {
        ctx->vk.DeviceWaitIdle(ctx->device);
        pclr__engine_free(&ctx->e);
        for (i = 0; i < ctx->buffer_count; ++i) pclr__vk_mem_free(ctx, &ctx->buffers[i]);
        for (k = 0; k < ctx->retired_count; ++k) pclr__vk_mem_free(ctx, &ctx->retired[k]);
        pclr__vk_mem_free(ctx, &ctx->partials);
        pclr__vk_mem_free(ctx, &ctx->ctl);
        pclr__vk_mem_free(ctx, &ctx->result);
        pclr__vk_mem_free(ctx, &ctx->lay_ctl);
        pclr__vk_mem_free(ctx, &ctx->lay_states);
        pclr__vk_mem_free(ctx, &ctx->hist);
        if (ctx->timestamps) ctx->vk.DestroyQueryPool(ctx->device, ctx->timestamps, NULL);
        if (ctx->fence) ctx->vk.DestroyFence(ctx->device, ctx->fence, NULL);
        if (ctx->pool) ctx->vk.DestroyCommandPool(ctx->device, ctx->pool, NULL);
        if (ctx->layout) ctx->vk.DestroyPipelineLayout(ctx->device, ctx->layout, NULL);
        if (ctx->set_layout) ctx->vk.DestroyDescriptorSetLayout(ctx->device, ctx->set_layout, NULL);
        if (ctx->owns_device) ctx->vk.DestroyDevice(ctx->device, NULL);
    }
    pclr__engine_free(&ctx->e);
    pclr__free(&ctx->e, ctx->buffers);
    if (ctx->owns_instance && ctx->instance) ctx->vk.DestroyInstance(ctx->instance, NULL);
    if (ctx->shaderc) ctx->sc.CompilerRelease(ctx->shaderc);
    pclr__lib_close(ctx->sc_lib);
    a = ctx->e.alloc;
    a.free(ctx, a.user);
}

static void pclr__vk_ops(pclr__backend_ops *ops);

PCLR_API pclr_result pclr_vk_create(const pclr_vk_desc *desc, pclr_vk_context **out) {
    pclr_vk_desc zero;
    pclr_allocator a;
    pclr_vk_context *ctx;
    pclr_result r;
    if (out) *out = NULL;
    if (!desc) {
        memset(&zero, 0, sizeof zero); /* the best device, like any zero desc */
        desc = &zero;
    }
    if ((r = pclr__create_check("pclr_vk_create", desc->error, desc->error_cap, out != NULL, &desc->allocator, &a)) != PCLR_OK)
        return r;
    if ((desc->compiler.compile == NULL) != (desc->compiler.release == NULL) && !desc->compiler.compile)
        return pclr__say(desc->error, desc->error_cap, PCLR_ERR_NULL_POINTER, "pclr_vk_create: desc.compiler.release without compile");
    if (!(ctx = (pclr_vk_context *)a.alloc(sizeof *ctx, a.user)))
        return pclr__say(desc->error, desc->error_cap, PCLR_ERR_OUT_OF_MEMORY, "out of host memory for the context");
    memset(ctx, 0, sizeof *ctx);
    pclr__engine_init(&ctx->e, pclr__vk_ops, &a);
    if ((r = pclr__vk_init(ctx, desc)) != PCLR_OK) {
        pclr__say(desc->error, desc->error_cap, r, "%s", ctx->e.last_error);
        pclr_vk_destroy(ctx);
        return r;
    }
    ctx->e.last_error[0] = '\0';
    *out = ctx;
    return PCLR_OK;
}

PCLR_API const pclr_vk_features *pclr_vk_get_features(const pclr_vk_context *ctx) { return ctx ? &ctx->features : NULL; }
PCLR_API const pclr_vk_api *pclr_vk_get_api(const pclr_vk_context *ctx) { return ctx ? &ctx->vk : NULL; }
PCLR_API VkDevice pclr_vk_get_device(const pclr_vk_context *ctx) { return ctx ? ctx->device : VK_NULL_HANDLE; }
PCLR_API const char *pclr_vk_build_log(const pclr_vk_context *ctx) { return pclr__engine_log(ctx ? &ctx->e : NULL); }
PCLR_API const char *pclr_vk_last_error(const pclr_vk_context *ctx) { return pclr__engine_error(ctx ? &ctx->e : NULL); }
PCLR_API pclr_result pclr_vk_resolve(pclr_vk_context *ctx, const pclr_config *cfg, pclr_config *out) {
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    PCLR__ONE_CALL(&ctx->e.busy, pclr__engine_resolve(&ctx->e, cfg, out));
}
PCLR_API pclr_result pclr_vk_prepare(pclr_vk_context *ctx, const pclr_config *cfg) {
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    PCLR__ONE_CALL(&ctx->e.busy, pclr__engine_prepare(&ctx->e, cfg));
}

PCLR_API pclr_result pclr_vk_list_devices(const pclr_vk_desc *desc, char *buf, size_t cap, size_t *len, int *count) {
    pclr_vk_context *ctx;
    pclr_allocator a;
    pclr_vk_desc zero;
    VkPhysicalDevice devices[32];
    uint32_t n = 32, i;
    size_t at = 0;
    void *lib;
    char why[512];
    pclr_result r;
    if (count) *count = 0;
    if (len) *len = 0;
    if (buf && cap) buf[0] = '\0';
    if (!desc) {
        memset(&zero, 0, sizeof zero);
        desc = &zero;
    }
    if (!pclr__allocator_of(&desc->allocator, &a)) return PCLR_ERR_NULL_POINTER;
    if (!(ctx = (pclr_vk_context *)a.alloc(sizeof *ctx, a.user))) return PCLR_ERR_OUT_OF_MEMORY;
    memset(ctx, 0, sizeof *ctx);
    pclr__engine_init(&ctx->e, pclr__vk_ops, &a);
    r = pclr__library_open(&pclr__vk_library, desc->vulkan_api, desc->vulkan_library, pclr__vk_names, pclr__vk_library.count, &ctx->vk,
                           sizeof ctx->vk, &lib, ctx->vk_name, sizeof ctx->vk_name, why, sizeof why);
    if (r == PCLR_OK) r = pclr__vk_instance(ctx, devices, &n);
    else pclr__say(ctx->e.last_error, sizeof ctx->e.last_error, r, "%s", why);
    for (i = 0; r == PCLR_OK && i < n; ++i) {
        VkPhysicalDeviceProperties p;
        VkPhysicalDeviceProperties2 p2;
        VkPhysicalDeviceSubgroupProperties sg;
        VkPhysicalDeviceDriverProperties dp;
        VkPhysicalDeviceFeatures f;
        char driver[2 * VK_MAX_DRIVER_NAME_SIZE + 16];
        ctx->vk.GetPhysicalDeviceProperties(devices[i], &p);
        ctx->vk.GetPhysicalDeviceFeatures(devices[i], &f);
        memset(&p2, 0, sizeof p2);
        memset(&sg, 0, sizeof sg);
        memset(&dp, 0, sizeof dp);
        p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
        sg.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
        dp.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
        p2.pNext = &sg;
        /* the driver's name and version string: core in 1.2, else VK_KHR_driver_properties */
        if (p.apiVersion >= VK_MAKE_VERSION(1, 2, 0) || pclr__vk_has_extension(ctx, devices[i], "VK_KHR_driver_properties")) sg.pNext = &dp;
        if (p.apiVersion >= VK_MAKE_VERSION(1, 1, 0)) ctx->vk.GetPhysicalDeviceProperties2(devices[i], &p2);
        if (dp.driverName[0]) snprintf(driver, sizeof driver, "%.*s %.*s", (int)VK_MAX_DRIVER_NAME_SIZE - 1, dp.driverName, (int)VK_MAX_DRIVER_INFO_SIZE - 1, dp.driverInfo);
        else snprintf(driver, sizeof driver, "version 0x%x", (unsigned)p.driverVersion);
        pclr__appendf(buf, cap, &at, "%u: %s (%s, Vulkan %u.%u.%u, driver %s, subgroup %u, shaderInt64 %s, shaderFloat64 %s)\n", i, p.deviceName,
                      pclr__vk_type_name(p.deviceType), VK_VERSION_MAJOR(p.apiVersion), VK_VERSION_MINOR(p.apiVersion),
                      VK_VERSION_PATCH(p.apiVersion), driver, (unsigned)sg.subgroupSize, f.shaderInt64 ? "yes" : "no", f.shaderFloat64 ? "yes" : "no");
    }
    if (r == PCLR_OK && count) *count = (int)n;
    if (r != PCLR_OK) pclr__appendf(buf, cap, &at, "%s\n", ctx->e.last_error);
    if (buf && cap) buf[at < cap ? at : cap - 1] = '\0';
    if (len) *len = at;
    if (ctx->instance) ctx->vk.DestroyInstance(ctx->instance, NULL);
    a.free(ctx, a.user);
    return r;
}

/* ------------------------------------------------------------ buffers as the engine sees them
   A pclr__mem is a VkBuffer's bits, whatever made the buffer: the engine (pclr_buffer_create: the
   alloc slot), pclr_vk_buffer_create, the program (pclr_vk_buffer: the wrap slot) or the context's
   scratch. The context's record of it (its memory and size), where it has one, is found by the VkBuffer. */
static pclr__mem pclr__vk_mem_of(VkBuffer b) {
    pclr__mem m;
    memset(&m, 0, sizeof m);
    memcpy(&m, &b, sizeof b < sizeof m ? sizeof b : sizeof m);
    return m;
}
static VkBuffer pclr__vk_buffer_of(pclr__mem m) {
    VkBuffer b = VK_NULL_HANDLE;
    memcpy(&b, &m, sizeof b < sizeof m ? sizeof b : sizeof m);
    return b;
}
/* A buffer of pclr_vk_buffer_create or pclr_buffer_create (NULL: none of this context's). */
static pclr__vk_mem *pclr__vk_find(pclr_vk_context *ctx, VkBuffer b) {
    size_t i;
    if (b == VK_NULL_HANDLE) return NULL;
    for (i = 0; i < ctx->buffer_count; ++i) if (ctx->buffers[i].buffer == b) return &ctx->buffers[i];
    return NULL;
}
/* The context's scratch: the partials, the control words (counter, atomic slots), the blocking calls' result. */
static const pclr__vk_mem *pclr__vk_scratch_of(const pclr_vk_context *ctx, VkBuffer b) {
    if (b == VK_NULL_HANDLE) return NULL;
    return b == ctx->partials.buffer ? &ctx->partials : b == ctx->ctl.buffer ? &ctx->ctl : b == ctx->result.buffer ? &ctx->result
         : b == ctx->lay_ctl.buffer ? &ctx->lay_ctl : b == ctx->lay_states.buffer ? &ctx->lay_states
         : b == ctx->hist.buffer ? &ctx->hist : NULL;
}
/* Any buffer the context has a record of (NULL: a program's own VkBuffer). */
static const pclr__vk_mem *pclr__vk_record_of(pclr_vk_context *ctx, VkBuffer b) {
    const pclr__vk_mem *own = pclr__vk_find(ctx, b);
    return own ? own : pclr__vk_scratch_of(ctx, b);
}

/* ------------------------------------------------------------ memory: the engine's slots and the public calls */
static pclr_result pclr__vk_buffer_create(pclr_vk_context *ctx, size_t bytes, VkBuffer *out) {
    pclr__vk_mem m;
    void *grown;
    pclr_result r;
    if (!(grown = pclr__grow(&ctx->e, ctx->buffers, &ctx->buffer_cap, ctx->buffer_count, sizeof *ctx->buffers)))
        return pclr__fail(&ctx->e, PCLR_ERR_OUT_OF_MEMORY, "out of host memory for a buffer");
    ctx->buffers = (pclr__vk_mem *)grown;
    if ((r = pclr__vk_mem_create(ctx, bytes, 0, &m)) != PCLR_OK) return r;
    ctx->buffers[ctx->buffer_count++] = m;
    *out = m.buffer;
    return PCLR_OK;
}
static void pclr__vk_buffer_destroy(pclr_vk_context *ctx, VkBuffer b) {
    pclr__vk_mem *m = pclr__vk_find(ctx, b);
    if (!m) return;
    ctx->vk.DeviceWaitIdle(ctx->device); /* recorded work may still read it */
    pclr__vk_mem_free(ctx, m);
    *m = ctx->buffers[--ctx->buffer_count];
}
static pclr_result pclr__vk_alloc(pclr__engine *e, size_t bytes, pclr__mem *m) {
    VkBuffer b = VK_NULL_HANDLE;
    const pclr_result r = pclr__vk_buffer_create((pclr_vk_context *)e, bytes, &b);
    *m = pclr__vk_mem_of(b);
    return r;
}
static void pclr__vk_free(pclr__engine *e, pclr__mem m) { pclr__vk_buffer_destroy((pclr_vk_context *)e, pclr__vk_buffer_of(m)); }
static pclr_result pclr__vk_copy_mem(pclr__engine *e, pclr__mem m, size_t offset, void *host, size_t bytes, int to_device) {
    pclr_vk_context *ctx = (pclr_vk_context *)e;
    const pclr__vk_mem *rec = pclr__vk_record_of(ctx, pclr__vk_buffer_of(m));
    if (!rec)
        return pclr__fail(e, PCLR_ERR_INVALID_ARGUMENT, "the buffer is a program's VkBuffer (pclr_vk_buffer): pclreduce does not know its "
                          "memory, so %s it with the program's own Vulkan commands", to_device ? "fill" : "read");
    return pclr__vk_copy(ctx, rec, offset, host, bytes, to_device);
}
static pclr_result pclr__vk_write(pclr__engine *e, pclr__mem m, size_t offset, const void *src, size_t bytes) {
    return pclr__vk_copy_mem(e, m, offset, (void *)(uintptr_t)src, bytes, 1);
}
static pclr_result pclr__vk_read(pclr__engine *e, pclr__mem m, size_t offset, void *dst, size_t bytes) {
    return pclr__vk_copy_mem(e, m, offset, dst, bytes, 0);
}
/* A program's VkBuffer as a buffer: Vulkan cannot tell a buffer's size, so bytes 0 is for the context's own. */
static pclr_result pclr__vk_wrap(pclr__engine *e, pclr__mem h, uint64_t bytes, pclr_buffer *out) {
    pclr_vk_context *ctx = (pclr_vk_context *)e;
    const VkBuffer b = pclr__vk_buffer_of(h);
    const pclr__vk_mem *own;
    if (b == VK_NULL_HANDLE) return pclr__fail(e, PCLR_ERR_NULL_POINTER, "pclr_vk_buffer: the VkBuffer is VK_NULL_HANDLE");
    if (!bytes) {
        if (!(own = pclr__vk_find(ctx, b)))
            return pclr__fail(e, PCLR_ERR_INVALID_ARGUMENT, "pclr_vk_buffer: bytes is 0 and Vulkan cannot tell a VkBuffer's size: pass the "
                              "size it was created with (0 is for a buffer of this context's pclr_vk_buffer_create or pclr_buffer_create)");
        bytes = own->size;
    }
    out->handle = h;
    out->bytes = bytes;
    out->address = 0; /* a VkBuffer is bound from its start: aligned */
    return PCLR_OK;
}

PCLR_API pclr_result pclr_vk_buffer_create(pclr_vk_context *ctx, size_t bytes, VkBuffer *out) {
    if (!out) return PCLR_ERR_NULL_POINTER;
    *out = VK_NULL_HANDLE;
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    PCLR__ONE_CALL(&ctx->e.busy, pclr__vk_buffer_create(ctx, bytes, out));
}
PCLR_API void pclr_vk_buffer_destroy(pclr_vk_context *ctx, VkBuffer buf) {
    if (ctx) pclr__vk_buffer_destroy(ctx, buf);
}
PCLR_API pclr_result pclr_vk_buffer_write(pclr_vk_context *ctx, VkBuffer buf, size_t offset, const void *src, size_t bytes) {
    const pclr__vk_mem *m;
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    if (!src && bytes) return pclr__fail(&ctx->e, PCLR_ERR_NULL_POINTER, "pclr_vk_buffer_write: src is NULL");
    if (!(m = pclr__vk_find(ctx, buf))) return pclr__fail(&ctx->e, PCLR_ERR_NULL_POINTER, "pclr_vk_buffer_write: not a buffer of pclr_vk_buffer_create");
    PCLR__ONE_CALL(&ctx->e.busy, pclr__vk_copy(ctx, m, offset, (void *)(uintptr_t)src, bytes, 1));
}
PCLR_API pclr_result pclr_vk_buffer_read(pclr_vk_context *ctx, VkBuffer buf, size_t offset, void *dst, size_t bytes) {
    const pclr__vk_mem *m;
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    if (!dst && bytes) return pclr__fail(&ctx->e, PCLR_ERR_NULL_POINTER, "pclr_vk_buffer_read: dst is NULL");
    if (!(m = pclr__vk_find(ctx, buf))) return pclr__fail(&ctx->e, PCLR_ERR_NULL_POINTER, "pclr_vk_buffer_read: not a buffer of pclr_vk_buffer_create");
    PCLR__ONE_CALL(&ctx->e.busy, pclr__vk_copy(ctx, m, offset, dst, bytes, 0));
}

/* ------------------------------------------------------------ a reduce's device work: the engine's slots
   The engine (pclr__engine_reduce) checks, plans and sequences; these record its passes. A blocking
   reduce (sync NULL) goes into the context's own command buffer, submitted and waited for at complete;
   an asynchronous one into sync->vulkan_commands, which the program submits. */

/* The partials buffer grown to bytes (an outgrown one is kept until destroy: recorded work may still use it). */
static pclr_result pclr__vk_partials(pclr_vk_context *ctx, uint64_t bytes) {
    pclr__vk_mem m;
    pclr_result r;
    if (bytes <= ctx->partials.size) return PCLR_OK;
    if (ctx->partials.buffer && ctx->retired_count == PCLR__VK_RETIRED) { /* full: wait for the device, then free them */
        int k;
        ctx->vk.DeviceWaitIdle(ctx->device);
        for (k = 0; k < ctx->retired_count; ++k) pclr__vk_mem_free(ctx, &ctx->retired[k]);
        ctx->retired_count = 0;
    }
    if ((r = pclr__vk_mem_create(ctx, bytes, 0, &m)) != PCLR_OK) return r;
    if (ctx->partials.buffer) ctx->retired[ctx->retired_count++] = ctx->partials;
    ctx->partials = m;
    return PCLR_OK;
}

/* FOLD: the partials, or for the atomic finish the control words (launch pushes the slot's index);
   PARTIALS: the partials; COUNTER: the control words (word 0); TICKETS: a layout's status word and tickets,
   fewer than 4 x the groups (pclr__plan_layout), host-visible and made zero; RESULT: the host-visible result
   buffer, or a layout's states buffer (grown; blocking reduces only, done before it grows again). */
static pclr_result pclr__vk_scratch(pclr__engine *e, const pclr__entry *en, pclr__scratch_kind what, uint64_t bytes, pclr__mem *m) {
    pclr_vk_context *ctx = (pclr_vk_context *)e;
    pclr_result r;
    if (what == PCLR__SCRATCH_TICKETS) {
        if (!ctx->lay_ctl.buffer) {
            if ((r = pclr__vk_mem_create(ctx, ((VkDeviceSize)ctx->e.facts.compute_units * 256 + 64) * 4, 1, &ctx->lay_ctl)) != PCLR_OK) return r;
            if (!ctx->lay_ctl.mapped) return pclr__fail(e, PCLR_ERR_BACKEND, "vkMapMemory failed for the layout tickets");
            memset(ctx->lay_ctl.mapped, 0, (size_t)ctx->lay_ctl.size);
        }
        *m = pclr__vk_mem_of(ctx->lay_ctl.buffer);
        return PCLR_OK;
    }
    if (what == PCLR__SCRATCH_FOLD && en->cfg.op == PCLR_HISTOGRAM) { /* its counts (made zero with the context) */
        *m = pclr__vk_mem_of(ctx->hist.buffer);
        return PCLR_OK;
    }
    if (what == PCLR__SCRATCH_COUNTER || (what == PCLR__SCRATCH_FOLD && (en->cfg.finish == PCLR_FINISH_ATOMIC || pclr__zeroed_scratch_bytes(&en->cfg)))) {
        *m = pclr__vk_mem_of(ctx->ctl.buffer);
        return PCLR_OK;
    }
    if (what == PCLR__SCRATCH_RESULT) {
        if (bytes <= ctx->result.size) {
            *m = pclr__vk_mem_of(ctx->result.buffer);
            return PCLR_OK;
        }
        if (bytes > ctx->lay_states.size) { /* (the last blocking reduce that used it is done) */
            pclr__vk_mem_free(ctx, &ctx->lay_states);
            memset(&ctx->lay_states, 0, sizeof ctx->lay_states);
            if ((r = pclr__vk_mem_create(ctx, bytes, 1, &ctx->lay_states)) != PCLR_OK) return r;
            if (!ctx->lay_states.mapped) return pclr__fail(e, PCLR_ERR_BACKEND, "vkMapMemory failed for the layout's states");
        }
        *m = pclr__vk_mem_of(ctx->lay_states.buffer);
        return PCLR_OK;
    }
    if ((r = pclr__vk_partials(ctx, bytes)) != PCLR_OK) return r;
    *m = pclr__vk_mem_of(ctx->partials.buffer);
    return PCLR_OK;
}

/* A blocking reduce records into the context's own command buffer; an asynchronous one into the program's. */
static pclr_result pclr__vk_begin_slot(pclr__engine *e, const pclr_sync *sync, int blocking) {
    pclr_vk_context *ctx = (pclr_vk_context *)e;
    pclr_result r;
    if (!blocking) {
        if (!sync || !sync->vulkan_commands)
            return pclr__fail(e, PCLR_ERR_NULL_POINTER, "Vulkan's asynchronous reduce records into sync.vulkan_commands (a recording "
                              "VkCommandBuffer of a compute queue), which is NULL");
        return PCLR_OK;
    }
    if ((r = pclr__vk_begin(ctx)) == PCLR_OK) ctx->recording = 1;
    return r;
}

/* A storage-buffer descriptor for bytes [at, at + bytes) of buf (size bytes; a buffer the context has a record of: its
   rounded size): bound from the alignment below at; *skip gets at - that. A buffer whose size ends inside the last
   element's 32-bit word is refused (the shader's array holds whole words only). */
static pclr_result pclr__vk_span(pclr_vk_context *ctx, const char *which, VkBuffer buf, uint64_t size, uint64_t at, uint64_t bytes,
                                 VkDescriptorBufferInfo *info, uint64_t *skip) {
    const uint64_t a = ctx->features.storage_alignment;
    const pclr__vk_mem *own = pclr__vk_record_of(ctx, buf);
    if (own) size = PCLR__VK_ROUNDED(own->size);
    if (at > size || bytes > size - at)
        return pclr__fail(&ctx->e, PCLR_ERR_SIZE_OVERFLOW, "%s: bytes [%llu, %llu) reach past the end of its %llu bytes", which,
                          (unsigned long long)at, (unsigned long long)(at + bytes), (unsigned long long)size);
    info->buffer = buf;
    info->offset = at / a * a;
    *skip = at - info->offset;
    info->range = size - info->offset;
    if (info->range > ctx->features.max_storage_range) info->range = ctx->features.max_storage_range / 16 * 16;
    if (*skip + bytes > info->range)
        return pclr__fail(&ctx->e, PCLR_ERR_SIZE_OVERFLOW, "%s's %llu bytes from byte %llu are more than the device binds at once "
                          "(maxStorageBufferRange %llu bytes): reduce it in pieces", which, (unsigned long long)bytes,
                          (unsigned long long)at, (unsigned long long)ctx->features.max_storage_range);
    if (bytes && (*skip + bytes + 3) / 4 * 4 > info->range)
        return pclr__fail(&ctx->e, PCLR_ERR_MISALIGNED, "%s ends inside a 32-bit word (%llu bytes from byte %llu of a %llu-byte "
                          "buffer): shaders read whole words, so create the buffer with its size rounded up to 4 bytes",
                          which, (unsigned long long)bytes, (unsigned long long)at, (unsigned long long)size);
    return PCLR_OK;
}
/* A scratch buffer bound whole (the partials a two-pass finish's second pass reads, a stand-in nothing reads). */
static void pclr__vk_whole(const pclr__vk_mem *m, VkDescriptorBufferInfo *info) {
    info->buffer = m->buffer;
    info->offset = 0;
    info->range = m->size;
}

/* (a layout's rows, cols, pitch and split then take bytes 32 to 63: pclr__glsl_args_bytes) */
typedef struct pclr__vk_push { uint64_t offset, n, offset2; uint32_t out_at, part_at; unsigned char params[224]; } pclr__vk_push;

/* One dispatch: barrier, pipeline, the five buffers, the push constants. */
static void pclr__vk_dispatch(pclr_vk_context *ctx, VkCommandBuffer cmd, const pclr__entry *en, const VkDescriptorBufferInfo *info,
                              const pclr__vk_push *push, uint32_t push_bytes, uint64_t groups) {
    VkWriteDescriptorSet w[PCLR__VK_BINDINGS];
    VkPipeline pipeline;
    int i;
    memcpy(&pipeline, en->program, sizeof pipeline);
    pclr__vk_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                     VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    ctx->vk.CmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    memset(w, 0, sizeof w);
    for (i = 0; i < PCLR__VK_BINDINGS; ++i) {
        w[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
        w[i].dstBinding = (uint32_t)i;
        w[i].descriptorCount = 1;
        w[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        w[i].pBufferInfo = &info[i];
    }
    ctx->vk.CmdPushDescriptorSetKHR(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, ctx->layout, 0, PCLR__VK_BINDINGS, w);
    ctx->vk.CmdPushConstants(cmd, ctx->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes, push);
    ctx->vk.CmdDispatch(cmd, (uint32_t)groups, 1, 1);
}

/* One pass as one dispatch. The bindings: 0 x (from the binding alignment below its first element), 1 out (the
   states from out_index on), 2 the fold scratch, 3 the counter (control word 0; a layout's: its tickets, whole),
   4 y (or x again), 5 a layout's segment offsets (or the counter); the push constants: x's and y's first elements
   counted from their bindings' starts, n, out's first word, the atomic finish's word, a layout's rows, cols, pitch
   and split, then the map's parameters. A two-pass finish's second pass reads the partials as x, whole. */
static pclr_result pclr__vk_launch(pclr__engine *e, const pclr__pass *p, const pclr_sync *sync) {
    pclr_vk_context *ctx = (pclr_vk_context *)e;
    const pclr__entry *en = p->en;
    const VkCommandBuffer cmd = sync ? (VkCommandBuffer)sync->vulkan_commands : ctx->cmd;
    const VkBuffer x = pclr__vk_buffer_of(p->x), y = pclr__vk_buffer_of(p->y), fold = pclr__vk_buffer_of(p->fold);
    const VkBuffer counter = pclr__vk_buffer_of(p->counter), out = pclr__vk_buffer_of(p->out);
    const uint64_t es = en->elem_size, ys = en->y_size, ss = en->layout.size;
    const pclr__vk_mem *rec;
    VkDescriptorBufferInfo info[PCLR__VK_BINDINGS];
    pclr__vk_push push;
    uint64_t skip, at, bytes, size;
    pclr_result r;
    int k;
    if (cmd == VK_NULL_HANDLE)
        return pclr__fail(e, PCLR_ERR_NULL_POINTER, "Vulkan's asynchronous reduce records into sync.vulkan_commands, which is NULL");
    memset(&push, 0, sizeof push);
    memset(info, 0, sizeof info);
    if ((rec = pclr__vk_scratch_of(ctx, x)) != NULL) {
        pclr__vk_whole(rec, &info[0]);
        push.offset = p->n ? p->x_offset : 0;
    } else {
        if ((r = pclr__vk_span(ctx, "in.x", x, p->x_bytes, p->x_offset * es, p->n * es, &info[0], &skip)) != PCLR_OK) return r;
        push.offset = skip / es;
    }
    push.n = p->n;
    if (ys) {
        if ((rec = pclr__vk_scratch_of(ctx, y)) != NULL) { /* the stand-in: n is 0 */
            pclr__vk_whole(rec, &info[4]);
        } else {
            if ((r = pclr__vk_span(ctx, "in.y", y, p->y_bytes, (p->n ? p->y_offset : 0) * ys, p->n * ys, &info[4], &skip)) != PCLR_OK)
                return r;
            push.offset2 = skip / ys;
        }
        if (p->n && push.offset2 % (uint64_t)en->cfg.vector_width != push.offset % (uint64_t)en->cfg.vector_width)
            return pclr__fail(e, PCLR_ERR_MISALIGNED, "y's elements do not line up with x's %d-element loads (x_offset and y_offset differ "
                              "modulo %d after the %u-byte binding alignment): use vector width 1", en->cfg.vector_width,
                              en->cfg.vector_width, ctx->features.storage_alignment);
    } else {
        info[4] = info[0];
    }
    for (k = 0; k < en->params; ++k) { /* at their offsets in the push constants (pclr__vk_push_bytes) */
        unsigned char v[8];
        const size_t sz = pclr__param_arg(en->param[k], p->params[k], v);
        uint32_t pat = pclr__glsl_args_bytes(&en->cfg), j;
        for (j = 0; j <= (uint32_t)k; ++j) {
            const uint32_t s = en->param[j] == PCLR_INT64 || en->param[j] == PCLR_UINT64 || en->param[j] == PCLR_DOUBLE ? 8 : 4;
            pat = (pat + s - 1) / s * s + (j < (uint32_t)k ? s : 0);
        }
        memcpy((unsigned char *)&push + pat, v, sz);
    }
    if (!(rec = pclr__vk_record_of(ctx, fold))) return pclr__fail(e, PCLR_ERR_BACKEND, "the fold scratch is not the context's");
    pclr__vk_whole(rec, &info[2]);
    if (en->cfg.finish == PCLR_FINISH_ATOMIC) push.part_at = PCLR__VK_CTL_SLOTS + (uint32_t)pclr__atomic_slot(&en->cfg);
    if (pclr__zeroed_scratch_bytes(&en->cfg)) /* the exact sum's cells and flags word; a histogram's counts */
        push.part_at = en->cfg.op == PCLR_HISTOGRAM ? 0 : PCLR__VK_CTL_ZEROED;
    info[3].buffer = counter; /* word 0 */
    info[3].offset = 0;
    info[3].range = 16;
    info[5] = info[3];
    if (p->b) { /* a layout's: the tickets, the offsets, rows, cols, pitch, split */
        const uint64_t shape[4] = {p->b->shape.rows, p->b->shape.cols, p->b->shape.pitch, p->b->plan.split};
        const VkBuffer offsets = pclr__vk_buffer_of(p->offsets);
        if (!(rec = pclr__vk_record_of(ctx, counter))) return pclr__fail(e, PCLR_ERR_BACKEND, "the layout's tickets are not the context's");
        pclr__vk_whole(rec, &info[3]);
        if (p->b->shape.layout == PCLR_LAYOUT_SEGMENTS && offsets != counter &&
            (r = pclr__vk_span(ctx, "in.offsets", offsets, p->offsets_bytes, 0, (p->b->shape.rows + 1) * 8, &info[5], &skip)) != PCLR_OK)
            return r;
        memcpy((unsigned char *)&push + PCLR__GLSL_ARGS_BYTES, shape, sizeof shape);
    }
    /* the states: out_index's byte, and on the last pass the bytes of pclr_vk_record's out_offset beyond whole states */
    bytes = p->out_count * ss;
    at = p->out_index * ss + (p->last ? ctx->out_bias : 0);
    size = p->out_bytes && p->out_bytes != UINT64_MAX ? p->out_bytes : at + bytes; /* (scratch: the record's size, in span) */
    if ((r = pclr__vk_span(ctx, "the states buffer", out, size, at, bytes, &info[1], &skip)) != PCLR_OK) return r;
    info[1].range = skip + bytes;
    push.out_at = (uint32_t)(skip / 4);
    pclr__vk_dispatch(ctx, cmd, en, info, &push, pclr__vk_push_bytes(&en->cfg, en->param, en->params), p->groups);
    return PCLR_OK;
}

/* After the last pass (ok 0: a launch failed): a blocking reduce's command buffer is ended, submitted and
   waited for, and its states copied to host; an asynchronous one's is the program's to submit. */
static pclr_result pclr__vk_complete(pclr__engine *e, const pclr_sync *sync, int ok, pclr__mem src, size_t bytes, void *host) {
    pclr_vk_context *ctx = (pclr_vk_context *)e;
    const pclr__vk_mem *rec;
    pclr_result r;
    (void)sync;
    if (!ctx->recording) return PCLR_OK; /* asynchronous: recorded into the program's command buffer */
    ctx->recording = 0;
    if (!ok) {
        ctx->vk.EndCommandBuffer(ctx->cmd); /* (reset at the next begin) */
        return PCLR_OK;
    }
    pclr__vk_barrier(ctx, ctx->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                     VK_ACCESS_HOST_READ_BIT);
    if ((r = pclr__vk_submit(ctx)) != PCLR_OK) return r;
    if (!(rec = pclr__vk_record_of(ctx, pclr__vk_buffer_of(src))))
        return pclr__fail(e, PCLR_ERR_BACKEND, "the states to read back are not in a buffer of the context's");
    if (!rec->mapped || bytes > rec->size) return pclr__vk_copy(ctx, rec, 0, host, bytes, 0);
    memcpy(host, rec->mapped, bytes);
    return PCLR_OK;
}

/* ------------------------------------------------------------ the deprecated verbs (0.4; removed in 0.5)
   pclr_vk_reduce, pclr_vk_reduce_map, pclr_vk_record and pclr_vk_record_map: their VkBuffers and sizes
   wrapped as buffers, then the engine's reduce. Use pclr_reduce / pclr_reduce_async on a generic context
   (pclr_vk_buffer for a program's VkBuffer; sync.vulkan_commands for the command buffer). */

/* A VkBuffer with the size a verb was given (0: an empty buffer, as before; VK_NULL_HANDLE: none). */
static pclr_result pclr__vk_given(pclr_vk_context *ctx, VkBuffer b, VkDeviceSize bytes, pclr_buffer *buf, const pclr_buffer **in) {
    pclr_result r;
    memset(buf, 0, sizeof *buf);
    *in = NULL;
    if (b == VK_NULL_HANDLE) return PCLR_OK;
    if (bytes) {
        if ((r = pclr__vk_wrap(&ctx->e, pclr__vk_mem_of(b), bytes, buf)) != PCLR_OK) return r;
    } else {
        buf->handle = pclr__vk_mem_of(b);
    }
    *in = buf;
    return PCLR_OK;
}

/* The verbs' one body: blocking (cmd unused, result) or recorded into cmd (the state to out at byte out_offset). */
static pclr_result pclr__vk_verb(pclr_vk_context *ctx, const char *fn, const pclr_config *cfg, VkBuffer x, VkDeviceSize x_size,
                                 uint64_t x_offset, VkBuffer y, VkDeviceSize y_size, uint64_t y_offset, uint64_t n, const double *params,
                                 int record, VkCommandBuffer cmd, VkBuffer out, VkDeviceSize out_offset, void *result) {
    pclr_buffer xb, yb, ob;
    pclr_input in;
    pclr_sync sync;
    const pclr__vk_mem *own;
    size_t ss;
    pclr_result r;
    memset(&in, 0, sizeof in);
    if ((r = pclr__vk_given(ctx, x, x_size, &xb, &in.x)) != PCLR_OK || (r = pclr__vk_given(ctx, y, y_size, &yb, &in.y)) != PCLR_OK)
        return r;
    in.x_offset = x_offset;
    in.y_offset = y_offset;
    in.params = params;
    in.n = n;
    if (!record) return pclr__engine_blocking(&ctx->e, fn, cfg, &in, result, SIZE_MAX, NULL); /* (results unsized, as before) */
    if (out == VK_NULL_HANDLE) return pclr__fail(&ctx->e, PCLR_ERR_NULL_POINTER, "%s: the output buffer is VK_NULL_HANDLE", fn);
    if (out_offset % 4)
        return pclr__fail(&ctx->e, PCLR_ERR_MISALIGNED, "%s: out_offset %llu is not a multiple of 4", fn, (unsigned long long)out_offset);
    /* out's size: the context's record of it, else not known (the verb takes none) */
    own = pclr__vk_find(ctx, out);
    if ((r = pclr__vk_wrap(&ctx->e, pclr__vk_mem_of(out), own ? own->size : UINT64_MAX, &ob)) != PCLR_OK) return r;
    /* the engine counts whole states: out_offset / the state's size of them, and the bytes beyond (out_offset
       need only be a multiple of 4) go to the last launch as out_bias */
    ss = cfg ? pclr_state_size(cfg) : 0;
    memset(&sync, 0, sizeof sync);
    sync.vulkan_commands = (void *)cmd;
    ctx->out_bias = ss ? out_offset % ss : 0;
    r = pclr__engine_async(&ctx->e, fn, cfg, &in, &ob, ss ? out_offset / ss : 0, &sync);
    ctx->out_bias = 0;
    return r;
}

PCLR_API pclr_result pclr_vk_record(pclr_vk_context *ctx, VkCommandBuffer cmd, const pclr_config *cfg, VkBuffer in,
                                    VkDeviceSize in_size, uint64_t offset, uint64_t n, VkBuffer out, VkDeviceSize out_offset) {
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    PCLR__ONE_CALL(&ctx->e.busy, pclr__vk_verb(ctx, "pclr_vk_record", cfg, in, in_size, offset, VK_NULL_HANDLE, 0, 0, n, NULL, 1, cmd,
                                               out, out_offset, NULL));
}
PCLR_API pclr_result pclr_vk_record_map(pclr_vk_context *ctx, VkCommandBuffer cmd, const pclr_config *cfg, VkBuffer x,
                                        VkDeviceSize x_size, uint64_t x_offset, VkBuffer y, VkDeviceSize y_size, uint64_t y_offset,
                                        uint64_t n, const double *params, VkBuffer out, VkDeviceSize out_offset) {
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    PCLR__ONE_CALL(&ctx->e.busy, pclr__vk_verb(ctx, "pclr_vk_record_map", cfg, x, x_size, x_offset, y, y_size, y_offset, n, params, 1, cmd,
                                               out, out_offset, NULL));
}
PCLR_API pclr_result pclr_vk_reduce(pclr_vk_context *ctx, const pclr_config *cfg, VkBuffer in, VkDeviceSize in_size,
                                    uint64_t offset, uint64_t n, void *result) {
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    PCLR__ONE_CALL(&ctx->e.busy, pclr__vk_verb(ctx, "pclr_vk_reduce", cfg, in, in_size, offset, VK_NULL_HANDLE, 0, 0, n, NULL, 0,
                                               VK_NULL_HANDLE, VK_NULL_HANDLE, 0, result));
}
PCLR_API pclr_result pclr_vk_reduce_map(pclr_vk_context *ctx, const pclr_config *cfg, VkBuffer x, VkDeviceSize x_size,
                                        uint64_t x_offset, VkBuffer y, VkDeviceSize y_size, uint64_t y_offset, uint64_t n,
                                        const double *params, void *result) {
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    PCLR__ONE_CALL(&ctx->e.busy, pclr__vk_verb(ctx, "pclr_vk_reduce_map", cfg, x, x_size, x_offset, y, y_size, y_offset, n, params, 0,
                                               VK_NULL_HANDLE, VK_NULL_HANDLE, 0, result));
}

/* ------------------------------------------------------------ tuner: timestamp queries around a batch */
static pclr_result pclr__vk_tune_begin(pclr__engine *e) {
    pclr_vk_context *ctx = (pclr_vk_context *)e;
    VkQueryPoolCreateInfo qi;
    VkResult r;
    if (ctx->timestamps) return PCLR_OK;
    if (ctx->timestamp_period <= 0.0f)
        return pclr__fail(e, PCLR_ERR_UNSUPPORTED_BY_DEVICE, "the tuner times with timestamp queries, which this device's queue family lacks");
    memset(&qi, 0, sizeof qi);
    qi.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
    qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qi.queryCount = 2;
    if ((r = ctx->vk.CreateQueryPool(ctx->device, &qi, NULL, &ctx->timestamps)) != VK_SUCCESS) {
        ctx->timestamps = VK_NULL_HANDLE;
        return pclr__vk_fail(ctx, r, "vkCreateQueryPool");
    }
    return PCLR_OK;
}
/* calls reduces of n elements at offsets[i] of pool, recorded (pclr__engine_async) into the context's command buffer
   between two timestamps; their states all go to the result buffer (a layout's: to out). */
static double pclr__vk_tune_time(pclr__engine *e, const pclr_config *c, const pclr_buffer *pool, const pclr_buffer *out, uint64_t n,
                                 const uint64_t *offsets, int calls) {
    pclr_vk_context *ctx = (pclr_vk_context *)e;
    pclr_input in;
    pclr_sync sync;
    pclr_buffer states;
    uint64_t ticks[2];
    int i;
    if (pclr__vk_begin(ctx) != PCLR_OK) return -1.0;
    memset(&in, 0, sizeof in);
    in.x = pool;
    in.n = n;
    memset(&sync, 0, sizeof sync);
    sync.vulkan_commands = (void *)ctx->cmd;
    memset(&states, 0, sizeof states);
    states.handle = pclr__vk_mem_of(ctx->result.buffer);
    states.bytes = ctx->result.size;
    ctx->vk.CmdResetQueryPool(ctx->cmd, ctx->timestamps, 0, 2);
    ctx->vk.CmdWriteTimestamp(ctx->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, ctx->timestamps, 0);
    for (i = 0; i < calls; ++i) {
        in.x_offset = offsets[i];
        if (pclr__engine_async(e, "pclr_vk_tune", c, &in, c->layout != PCLR_LAYOUT_ONE ? out : &states, 0, &sync) != PCLR_OK) {
            ctx->vk.EndCommandBuffer(ctx->cmd);
            return -1.0;
        }
    }
    ctx->vk.CmdWriteTimestamp(ctx->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, ctx->timestamps, 1);
    if (pclr__vk_submit(ctx) != PCLR_OK) return -1.0;
    if (ctx->vk.GetQueryPoolResults(ctx->device, ctx->timestamps, 0, 2, sizeof ticks, ticks, sizeof ticks[0],
                                    VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) != VK_SUCCESS)
        return -1.0;
    return (double)(ticks[1] - ticks[0]) * (double)ctx->timestamp_period * 1e-9;
}
PCLR_API pclr_result pclr_vk_tune(pclr_vk_context *ctx, pclr_type type, pclr_op op, const pclr_tune_options *opt,
                                  pclr_tune_entry *out, size_t cap, size_t *count) {
    if (count) *count = 0;
    if (!ctx) return PCLR_ERR_INVALID_CONTEXT;
    PCLR__ONE_CALL(&ctx->e.busy, pclr__engine_tune(&ctx->e, type, op, opt, out, cap, count));
}

/* ------------------------------------------------------------ describe, compile check, the generic context */
static void pclr__vk_describe(const pclr__engine *e, char *buf, size_t cap, size_t *len) {
    const pclr_vk_context *ctx = (const pclr_vk_context *)e;
    const pclr_vk_features *f = &ctx->features;
    pclr__appendf(buf, cap, len, "Vulkan backend (GLSL 4.50 -> SPIR-V, push descriptors)\n");
    pclr__appendf(buf, cap, len, "device: %s (%s, Vulkan %u.%u.%u, vendor 0x%04x), %u compute units%s, %u work-items per group max\n",
                  f->device_name, pclr__vk_type_name(f->type), VK_VERSION_MAJOR(f->api_version), VK_VERSION_MINOR(f->api_version),
                  VK_VERSION_PATCH(f->api_version), f->vendor_id, f->compute_units,
                  f->vendor_id == 0x10DE ? "" : " (estimated: Vulkan does not report them)", f->max_group_size);
    pclr__appendf(buf, cap, len, "subgroups: %u wide, arithmetic and shuffles %s; int64 %s, fp64 %s; storage range %llu bytes, push constants %u bytes\n",
                  f->subgroup_size, f->subgroup_ops ? "yes" : "no", f->int64 ? "yes" : "no", f->float64 ? "yes" : "no",
                  (unsigned long long)f->max_storage_range, f->max_push_constants);
    pclr__appendf(buf, cap, len, "inf, NaN and -0 kept (SignedZeroInfNanPreserve): float %s, double %s\n", f->preserve32 ? "yes" : "no",
                  f->preserve64 ? "yes" : "no");
    pclr__appendf(buf, cap, len, "context: %s, queue family %u\n", ctx->owns_device ? "its own instance and device" : "the caller's device",
                  ctx->queue_family);
    pclr__appendf(buf, cap, len, "loader: %s; compiler: %s\n", ctx->vk_name,
                  ctx->compiler.compile ? "the caller's (desc.compiler)" : ctx->sc.CompileIntoSpv ? ctx->sc_name
                  : "none: shaderc did not load (desc.allow_no_compiler: cached pipelines only)");
}
PCLR_API size_t pclr_vk_describe(const pclr_vk_context *ctx, char *buf, size_t cap) {
    return pclr__engine_describe(ctx ? &ctx->e : NULL, buf, cap);
}

PCLR_API pclr_result pclr_vk_compile_check(const pclr_config *cfg, const pclr_vk_desc *desc, char *log, size_t log_cap) {
    pclr_vk_desc zero;
    pclr__engine e;
    pclr_shaderc_api sc;
    pclr_config c;
    pclr_result r;
    const char *why = NULL;
    char name[256], *src = NULL;
    uint32_t *words = NULL;
    size_t size = 0;
    void *lib = NULL, *compiler = NULL;
    if (log && log_cap) log[0] = '\0';
    if (!desc) {
        memset(&zero, 0, sizeof zero);
        desc = &zero;
    }
    if (!cfg) return pclr__say(log, log_cap, PCLR_ERR_NULL_POINTER, "config pointer is NULL");
    c = *cfg;
    if (c.backend == PCLR_BACKEND_AUTO) c.backend = PCLR_VULKAN;
    if ((r = pclr_config_resolve(&c, &c, &why)) != PCLR_OK) return pclr__say(log, log_cap, r, "invalid configuration: %s", why);
    if (c.backend != PCLR_VULKAN) return pclr__say(log, log_cap, PCLR_ERR_UNSUPPORTED_COMBINATION, "the Vulkan backend runs only vulkan kernels");
    memset(&e, 0, sizeof e);
    memset(&sc, 0, sizeof sc);
    if (!pclr__allocator_of(&desc->allocator, &e.alloc))
        return pclr__say(log, log_cap, PCLR_ERR_NULL_POINTER, "desc.allocator needs both alloc and free, or neither");
    if (!desc->compiler.compile &&
        (r = pclr__library_open(&pclr__shaderc_library, desc->shaderc_api, desc->shaderc_library, pclr__shaderc_names,
                                pclr__shaderc_library.count, &sc, sizeof sc, &lib, name, sizeof name, log, log_cap)) != PCLR_OK)
        return r;
    if (pclr_kernel_source(&c, NULL, 0, &size) != PCLR_OK || !(src = (char *)pclr__alloc(&e, size))) {
        r = pclr__say(log, log_cap, PCLR_ERR_OUT_OF_MEMORY, "out of host memory for the kernel source");
    } else {
        pclr_kernel_source(&c, src, size, NULL);
        r = pclr__vk_compile(&e, &sc, &compiler, &desc->compiler, src, &words, &size);
        if (r != PCLR_OK) pclr__say(log, log_cap, r, "%s%s%s", e.last_error, e.build_log && e.build_log[0] ? "\n" : "", pclr__engine_log(&e));
        else pclr__say(log, log_cap, r, "%s", pclr__engine_log(&e));
    }
    if (compiler) sc.CompilerRelease(compiler);
    pclr__free(&e, src);
    pclr__free(&e, words);
    pclr__free(&e, e.build_log);
    pclr__lib_close(lib);
    return r;
}

static pclr_result pclr__vk_generic_create(const pclr_desc *d, pclr__engine **out) {
    pclr_vk_desc v;
    pclr_vk_context *ctx = NULL;
    pclr_result r;
    memset(&v, 0, sizeof v);
    PCLR__DESC_FROM(v, d);
    v.device_number = d->device; /* the same numbering: 0 = the best, k = device k - 1 */
    v.vulkan_library = d->vulkan_library;
    v.shaderc_library = d->shaderc_library;
    v.vulkan_api = d->vulkan_api;
    v.shaderc_api = d->shaderc_api;
    if (d->vulkan) { /* the program's own objects and compiler */
        v.instance = d->vulkan->instance;
        v.physical_device = d->vulkan->physical_device;
        v.device = d->vulkan->device;
        v.queue_family = d->vulkan->queue_family;
        v.queue = d->vulkan->queue;
        v.enabled_features = d->vulkan->enabled_features;
        v.compiler = d->vulkan->compiler;
        v.allow_no_compiler = d->vulkan->allow_no_compiler;
    }
    r = pclr_vk_create(&v, &ctx);
    *out = ctx ? &ctx->e : NULL;
    return r;
}
static void pclr__vk_generic_destroy(pclr__engine *e) { pclr_vk_destroy((pclr_vk_context *)e); }
/* The generic context's engine is the Vulkan context (its first member). */
PCLR_API pclr_vk_context *pclr_context_vk(const pclr_context *ctx) {
    return ctx && ctx->backend == PCLR_VULKAN ? (pclr_vk_context *)ctx->engine : NULL;
}
/* A buffer's handle is its VkBuffer (pclr_buffer_create's and pclr_vk_buffer's alike). */
PCLR_API VkBuffer pclr_buffer_vk(const pclr_context *ctx, const pclr_buffer *buf) {
    return ctx && buf && buf->owner == ctx && ctx->backend == PCLR_VULKAN ? pclr__vk_buffer_of(buf->handle) : VK_NULL_HANDLE;
}
PCLR_API pclr_result pclr_vk_get_native(const pclr_context *ctx, pclr_vk_native *out) {
    const pclr_vk_context *vk;
    const pclr_result r = pclr__native_of(ctx, PCLR_VULKAN, "pclr_vk_get_native", out, sizeof *out);
    if (r != PCLR_OK) return r;
    vk = (const pclr_vk_context *)ctx->engine;
    out->instance = vk->instance;
    out->physical_device = vk->physical;
    out->device = vk->device;
    out->queue_family = vk->queue_family;
    out->queue = vk->queue;
    out->api = &vk->vk;
    out->features = &vk->features;
    return PCLR_OK;
}
PCLR_API pclr_result pclr_vk_buffer(pclr_context *ctx, VkBuffer buffer, size_t bytes, pclr_buffer *out) {
    return pclr__buffer_wrap(ctx, PCLR_VULKAN, "pclr_vk_buffer", pclr__vk_mem_of(buffer), bytes, out);
}
static pclr_result pclr__vk_device_count(const pclr_desc *d, int *count) {
    pclr_vk_desc vd;
    pclr_result r;
    memset(&vd, 0, sizeof vd);
    vd.allocator = d->allocator;
    vd.vulkan_library = d->vulkan_library;
    vd.vulkan_api = d->vulkan_api;
    if ((r = pclr_vk_list_devices(&vd, NULL, 0, NULL, count)) != PCLR_OK || *count <= 0) {
        *count = 0;
        return pclr__say(d->error, d->error_cap, r != PCLR_OK ? r : PCLR_ERR_NO_DEVICE, "no Vulkan device (%s)",
                         r != PCLR_OK ? pclr_result_string(r) : "the loader lists none");
    }
    return PCLR_OK;
}
/* The backend's slots (pclr__backend_ops: the contract), filled by name. */
static void pclr__vk_ops(pclr__backend_ops *ops) {
    ops->backend = PCLR_VULKAN;
    ops->defaults = pclr__vk_defaults;
    ops->check = pclr__vk_check;
    ops->build = pclr__vk_build;
    ops->release = pclr__vk_release;
    ops->alloc = pclr__vk_alloc;
    ops->free = pclr__vk_free;
    ops->write = pclr__vk_write;
    ops->read = pclr__vk_read;
    ops->wrap = pclr__vk_wrap;
    ops->scratch = pclr__vk_scratch;
    ops->begin = pclr__vk_begin_slot;
    ops->complete = pclr__vk_complete;
    ops->tune_begin = pclr__vk_tune_begin;
    ops->tune_time = pclr__vk_tune_time;
    ops->describe = pclr__vk_describe;
    ops->create = pclr__vk_generic_create;
    ops->destroy = pclr__vk_generic_destroy;
    ops->launch = pclr__vk_launch;
}
PCLR__DEPRECATED_OK_END
#endif /* PCLREDUCE_IMPLEMENTATION && !PCLREDUCE_VK_IMPLEMENTED */

/*
------------------------------------------------------------------------------
This software is available under the MIT License (also in LICENSE):

Copyright (c) 2026 the pclreduce authors

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
------------------------------------------------------------------------------
*/
