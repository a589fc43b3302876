"""The simulator's columns (NumPy arrays and lists of text) as an Arrow table, built from buffers.

``pyarrow.array`` and ``pyarrow.table`` import pandas the first time they convert anything (to
check whether the input is a pandas object), which costs about 0.6 s; building the arrays from
their buffers does not, and copies nothing but the text. NaN in a float column becomes null, as
``pyarrow.Table.from_pandas`` makes it, so readers other than pandas see missing values.
"""

from __future__ import annotations

from itertools import accumulate
from typing import Any

import numpy as np
import pyarrow as pa

_TYPES = {
    np.dtype(np.uint64): pa.uint64(),
    np.dtype(np.int64): pa.int64(),
    np.dtype(np.float64): pa.float64(),
}


def arrow_table(columns: dict[str, Any]) -> pa.Table:
    return pa.Table.from_arrays([_array(values) for values in columns.values()], names=list(columns))


def _array(values: Any) -> pa.Array:
    if isinstance(values, np.ndarray):
        if values.dtype == np.bool_:
            bits = np.packbits(values, bitorder="little")
            return pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(bits)])
        values = np.ascontiguousarray(values)
        validity = None
        if values.dtype == np.float64:
            missing = np.isnan(values)
            if missing.any():
                validity = pa.py_buffer(np.packbits(~missing, bitorder="little"))
        return pa.Array.from_buffers(_TYPES[values.dtype], len(values), [validity, pa.py_buffer(values)])
    encoded = [text.encode("utf-8") for text in values]
    offsets = np.fromiter(accumulate(map(len, encoded), initial=0), dtype=np.int64, count=len(encoded) + 1)
    # Arrow's string type has 32-bit offsets; 2 GiB of text or more in one column needs large_string.
    kind, offsets = (pa.string(), offsets.astype(np.int32)) if offsets[-1] < 2**31 else (pa.large_string(), offsets)
    return pa.Array.from_buffers(kind, len(encoded), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))])
