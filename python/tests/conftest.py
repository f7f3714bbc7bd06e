# SPDX-License-Identifier: Apache-2.0
"""Fixtures for the package's tests: simulated machines (docs/machine-file.md) through the
installed package and the real dlopen path. tests/python/run.sh runs them in a fresh venv."""
import os

import pytest


def simulated(machine: str, **extra: str) -> dict:
    """An environment for a child on a simulated machine: PATH and the machine only."""
    env = {"PATH": "/usr/bin:/bin", "PEERGATE_SIMULATE": machine}
    env.update(extra)
    return env


@pytest.fixture
def bridged():
    """bridged-a100-4x: NVLink bridges join 0-1 and 2-3; every other pair is SYS."""
    return simulated("bridged-a100-4x")


@pytest.fixture
def expected():
    """What CMake says this build is (tests/python/run.sh passes it)."""
    return {"version": os.environ["PEERGATE_EXPECTED_VERSION"],
            "soversion": int(os.environ["PEERGATE_EXPECTED_SOVERSION"])}
