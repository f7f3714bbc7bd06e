/* SPDX-License-Identifier: Apache-2.0 */
/* A C program built against an installed peergate through pkg-config: only
   <peergate/peergate_c.h>. It negotiates the buffer size as docs/c-api.md says and expects a
   veto (1) with a peergate.gate/v1 document on a host without NVML or nvidia-smi. */
#include <peergate/peergate_c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
    const char* envp[] = {"PATH=/usr/bin:/bin",
                          "PEERGATE_NVML_LIB=/nonexistent/libnvidia-ml.so.1",
                          "PEERGATE_NVIDIA_SMI=/nonexistent/nvidia-smi",
                          NULL};
    char small[4];
    const int needed = peergate_gate_json(envp, "0,1", "nccl", small, sizeof small);
    if (needed >= 0) {
        return 1;
    }
    char* out = malloc((size_t)-needed);
    if (out == NULL) {
        return 1;
    }
    const int status = peergate_gate_json(envp, "0,1", "nccl", out, (size_t)-needed);
    printf("status=%d %.60s\n", status, out);
    const int ok = status == 1 && strstr(out, "\"schema\":\"peergate.gate/v1\"") != NULL;
    free(out);
    return ok ? 0 : 1;
}
