#!/usr/bin/env python3
# The docs/c-api.md example: ask libpeergate.so for the gate decision through ctypes and
# launch with the decided environment. Usage: gate_ctypes_example.py LIBPEERGATE GPUS [PLACE]
import ctypes
import json
import os
import sys


def peergate_gate(lib_path, gpus=None, profile="llama.cpp", env=None, place=0):
    lib = ctypes.CDLL(lib_path)
    c_envp = ctypes.POINTER(ctypes.c_char_p)
    lib.peergate_gate_json.argtypes = [c_envp, ctypes.c_char_p, ctypes.c_char_p,
                                       ctypes.c_char_p, ctypes.c_size_t]
    lib.peergate_gate_place_json.argtypes = [c_envp, ctypes.c_char_p, ctypes.c_int,
                                             ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
    env = dict(os.environ if env is None else env)
    items = [f"{k}={v}".encode() for k, v in env.items()]
    envp = (ctypes.c_char_p * (len(items) + 1))(*items, None)
    gpus = gpus.encode() if gpus else None
    size = 1 << 16
    while True:
        out = ctypes.create_string_buffer(size)
        if place:  # the best `place` GPUs among gpus, as `peergate gate --place` picks them
            status = lib.peergate_gate_place_json(envp, gpus, place, profile.encode(), out, size)
        else:
            status = lib.peergate_gate_json(envp, gpus, profile.encode(), out, size)
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
    place = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    status, decision = peergate_gate(sys.argv[1], sys.argv[2], place=place)
    print(status, decision["p2p"], json.dumps(decision["veto"]),
          child_env(decision, os.environ).get("GGML_CUDA_P2P", "<unset>"))
    if place:
        print("placed on", decision["selection"])
