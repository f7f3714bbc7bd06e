/* SPDX-License-Identifier: Apache-2.0 */
/* The C API of peergate's P2P gate, for launchers written in Python (ctypes), Go (cgo) ...
   Built as libpeergate.so. See docs/c-api.md. */
#ifndef PEERGATE_C_H
#define PEERGATE_C_H

#include <stddef.h>

/* What libpeergate.so exports (it is built with hidden visibility). */
#ifndef PEERGATE_API
#define PEERGATE_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Decides whether P2P may flow for a launch on this host and writes the decision as a
   peergate.gate/v1 JSON document (NUL-terminated) into out.
     envp:    NULL-terminated "NAME=value" array: the environment the child would inherit
              (NULL: empty). PEERGATE_NVML_LIB, PEERGATE_NVIDIA_SMI, PEERGATE_HOST_ROOT in it
              redirect the host discovery, as for the peergate command.
     gpus:    "0,1,3" (nvidia-smi indices) or "all"; NULL: the inherited environment decides.
     profile: "llama.cpp", "nccl", "vllm", "sglang" or "all"; NULL: "llama.cpp".
   Returns what `peergate gate` exits with: 0 when P2P is allowed, 1 when it is vetoed, 3 when
   no CUDA program can start on this node (the document's "node_usable" is false; P2P is vetoed
   too), 2 for a bad gpus or profile or a GPU in gpus that the host does not have (out then
   holds {"schema": "peergate.gate/v1", "error": "..."}), and -n when out_size is too small:
   n bytes (the NUL included) are needed, and out holds "" if out_size > 0. Never throws,
   never calls exit, thread-compatible (no global state). */
PEERGATE_API int peergate_gate_json(
    const char* const* envp, const char* gpus, const char* profile, char* out, size_t out_size);

/* The same decision for the best `place` GPUs among `gpus` (NULL: among those an inherited
   CUDA_VISIBLE_DEVICES in envp exposes, else every GPU), as `peergate gate --place K`
   picks them: the strongest weakest link, then the most bandwidth inside the group, then
   the fewest NUMA nodes. The document's "selection" names them. place 0 is
   peergate_gate_json. Returns as peergate_gate_json does; 2 also when the GPUs cannot be
   placed (place < 0, fewer candidates than place, the topology unreadable). */
PEERGATE_API int peergate_gate_place_json(const char* const* envp,
                                          const char* gpus,
                                          int place,
                                          const char* profile,
                                          char* out,
                                          size_t out_size);

/* The host's topology as `peergate topo --json` gives it: a peergate.topology/v1 document
   (the GPUs, the interconnect matrix, NVLink islands, NUMA and CPU affinity, NICs). envp as
   for peergate_gate_json. Returns 0 when the matrix was read, 2 when it is unreadable (the
   document then says "readable": false and why, in "reason"; or holds "error" when the
   environment's PEERGATE_* settings cannot be used), -n when out_size is too small. */
PEERGATE_API int peergate_topology_json(const char* const* envp, char* out, size_t out_size);

/* The best `count` groups of `size` GPUs among `gpus`, as `peergate place --size SIZE
   --count COUNT --gpus GPUS --json` finds them: a peergate.placement/v1 document.
     gpus:    "0,1,3" or "all"; NULL: "all".
     count:   0: as many groups as fit (floor(candidates / size)).
     profile: which launcher's `peergate exec` lines the document carries, as for
              peergate_gate_json, or "all"; NULL: "all".
   Returns 0 when placed; 2 when the GPUs cannot be placed (size < 1, count < 0, a bad list,
   size x count more than the candidates, the topology unreadable), out then holding
   {"schema": "peergate.placement/v1", "error": "..."}; -n when out_size is too small. */
PEERGATE_API int peergate_place_json(const char* const* envp,
                                     const char* gpus,
                                     int size,
                                     int count,
                                     const char* profile,
                                     char* out,
                                     size_t out_size);

#ifdef __cplusplus
}
#endif

#endif /* PEERGATE_C_H */
