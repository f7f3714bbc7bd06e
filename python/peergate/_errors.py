# SPDX-License-Identifier: Apache-2.0
"""The one exception the package raises."""
from __future__ import annotations

from typing import Any, Dict, Optional


class PeergateError(Exception):
    """What libpeergate.so said was wrong (a bad GPU list or profile, a topology that cannot
    be read, a placement that cannot be made), or why the library could not be loaded.

    >>> try:
    ...     peergate.place(size=3, gpus=[0, 1])
    ... except peergate.PeergateError as error:
    ...     print(error)
    """

    def __init__(self, message: str, document: Optional[Dict[str, Any]] = None) -> None:
        super().__init__(message)
        self.message = message
        self.document = document  # the library's JSON document, where it gave one
