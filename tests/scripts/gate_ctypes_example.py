#!/usr/bin/env python3
# The docs/c-api.md example: ask libpeergate.so for the gate decision through ctypes and
# launch with the decided environment. Usage: gate_ctypes_example.py LIBPEERGATE GPUS
import ctypes
import json
import os
import sys


def peergate_gate(lib_path, gpus=None, profile="llama.cpp", env=None):
    lib = ctypes.CDLL(lib_path)
    lib.peergate_gate_json.argtypes = [ctypes.POINTER(ctypes.c_char_p), ctypes.c_char_p,
                                       ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
    lib.peergate_gate_json.restype = ctypes.c_int
    env = dict(os.environ if env is None else env)
    items = [f"{k}={v}".encode() for k, v in env.items()]
    envp = (ctypes.c_char_p * (len(items) + 1))(*items, None)
    size = 1 << 16
    while True:
        out = ctypes.create_string_buffer(size)
        status = lib.peergate_gate_json(envp, gpus.encode() if gpus else None,
                                        profile.encode(), out, size)
        if status >= 0:
            return status, json.loads(out.value.decode())
        size = -status  # the buffer was too small: this many bytes are needed


def child_env(decision, env):
    child = dict(env)
    for name in decision["unset"]:
        child.pop(name, None)
    child.update(decision["set"])
    return child


if __name__ == "__main__":
    status, decision = peergate_gate(sys.argv[1], sys.argv[2])
    print(status, decision["p2p"], json.dumps(decision["veto"]),
          child_env(decision, os.environ).get("GGML_CUDA_P2P", "<unset>"))
