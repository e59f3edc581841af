"""MATLAB v5 .mat files (scipy.io.loadmat), after a structure check of the bytes."""

from __future__ import annotations

import io
import warnings

import numpy as np

from .. import memory
from ._errors import DataLoadError, _short


def _read_mat5(raw, fname):
    import scipy.io

    _check_mat5_structure(raw, fname)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            data = scipy.io.loadmat(io.BytesIO(raw), squeeze_me=False, chars_as_strings=True)
    except MemoryError:
        raise DataLoadError(
            f"{fname} could not be read: it declares arrays larger than the memory available "
            "(the file may be corrupt)."
        ) from None
    except Exception as exc:
        raise DataLoadError(
            f"{fname} could not be read as a MATLAB v5 .mat file ({_short(exc)}); it is "
            "corrupt, truncated or not a .mat file. Save it again in MATLAB "
            "(save(file, 'X', 'Y') or save(file, 'X', 'Y', '-v7.3'))."
        ) from None
    variables = {k: v for k, v in data.items() if not k.startswith("__")}
    for key, value in variables.items():
        if isinstance(value, str) and value.startswith("Read error:"):  # scipy's note
            reason = value[len("Read error:"):].strip()
            raise DataLoadError(
                f"{fname}: the variable {key} could not be read ({reason}); the file is "
                "corrupt. Save it again in MATLAB."
            )
    return variables


_MI_ITEMSIZE = {1: 1, 2: 1, 3: 2, 4: 2, 5: 4, 6: 4, 7: 4, 9: 8, 12: 8, 13: 8,
                16: 1, 17: 2, 18: 4}


_MI_INTEGER = {1: "i1", 2: "u1", 3: "i2", 4: "u2", 5: "i4", 6: "u4", 12: "i8", 13: "u8"}


_MI_MATRIX, _MI_COMPRESSED = 14, 15


_MX_CELL, _MX_STRUCT, _MX_OBJECT, _MX_CHAR, _MX_SPARSE = 1, 2, 3, 4, 5


_MX_NUMERIC = range(6, 16)


_MX_FUNCTION, _MX_OPAQUE = 16, 17


class _Corrupt(Exception):
    pass


def _check_mat5_structure(raw, fname):
    """Raise DataLoadError unless the v5 file's element structure is consistent."""
    if len(raw) < 128:
        raise DataLoadError(f"{fname} is truncated: {len(raw)} bytes, shorter than the 128-byte "
                            "MATLAB header.")
    marker = raw[126:128]
    if marker not in (b"IM", b"MI"):
        return  # not v5 (v4, or not MATLAB at all): scipy's pure-Python readers decide
    endian = "<" if marker == b"IM" else ">"
    pos = 128
    try:
        while pos < len(raw):
            mtype, nbytes, start, _ = _mat5_tag(raw, pos, len(raw), endian)
            end = start + nbytes
            if end > len(raw):
                raise _Corrupt(f"a variable at byte {pos} claims {nbytes} bytes, but the file "
                               f"ends {len(raw) - start} bytes later")
            if mtype == _MI_COMPRESSED:
                inner = _inflate(raw[start:end], fname)
                itype, inbytes, istart, _ = _mat5_tag(inner, 0, len(inner), endian)
                if itype != _MI_MATRIX or istart + inbytes > len(inner):
                    raise _Corrupt(f"the compressed variable at byte {pos} does not hold a "
                                   "matrix of the size it declares")
                _mat5_matrix(inner, istart, istart + inbytes, endian, 0)
            elif mtype == _MI_MATRIX:
                _mat5_matrix(raw, start, end, endian, 0)
            else:
                raise _Corrupt(f"unexpected element type {mtype} at byte {pos}")
            pos = end
    except _Corrupt as exc:
        raise DataLoadError(
            f"{fname} is not a valid MATLAB v5 file: {exc}. It is corrupt or truncated; save "
            "it again in MATLAB."
        ) from None


def _inflate(data, fname):
    import zlib

    limit = memory.available_bytes() or (1 << 34)
    z = zlib.decompressobj()
    try:
        out = z.decompress(data, limit)
    except zlib.error as exc:
        raise _Corrupt(f"a compressed variable does not inflate ({exc})") from None
    if z.unconsumed_tail:
        raise DataLoadError(f"{fname}: a compressed variable inflates to more than the memory "
                            f"available ({memory.format_bytes(limit)}).")
    return out


def _mat5_tag(buf, pos, limit, endian):
    """(type, nbytes, data start, next element position) of the element at ``pos``."""
    if pos + 8 > limit:
        raise _Corrupt(f"an element tag at byte {pos} runs past the end of its container")
    word = int.from_bytes(buf[pos:pos + 4], "little" if endian == "<" else "big")
    if word >> 16:  # small data element: type and size in one word, data in the next
        nbytes, mtype = word >> 16, word & 0xFFFF
        if nbytes > 4:
            raise _Corrupt(f"a small element at byte {pos} claims {nbytes} bytes")
        return mtype, nbytes, pos + 4, pos + 8
    nbytes = int.from_bytes(buf[pos + 4:pos + 8], "little" if endian == "<" else "big")
    start = pos + 8
    return word, nbytes, start, start + nbytes + (-nbytes) % 8


def _mat5_sub(buf, pos, limit, endian, what):
    """Next sub-element inside a matrix: (type, nbytes, start, next)."""
    mtype, nbytes, start, nxt = _mat5_tag(buf, pos, limit, endian)
    if start + nbytes > limit:
        raise _Corrupt(f"the {what} at byte {pos} runs past the end of its matrix")
    return mtype, nbytes, start, min(nxt, limit)


def _mat5_count(mtype, nbytes, what):
    size = _MI_ITEMSIZE.get(mtype)
    if size is None or nbytes % size:
        raise _Corrupt(f"the {what} has data type {mtype} and {nbytes} bytes")
    return nbytes // size


def _mat5_ints(buf, mtype, nbytes, start, endian, what):
    code = _MI_INTEGER.get(mtype)
    if code is None:
        raise _Corrupt(f"the {what} is not stored as integers (type {mtype})")
    count = _mat5_count(mtype, nbytes, what)
    return np.frombuffer(buf, dtype=np.dtype(code).newbyteorder(endian), count=count,
                         offset=start).astype(np.int64)


def _mat5_matrix(buf, start, end, endian, depth):
    if start == end:
        return  # an empty matrix
    if depth > 32:
        raise _Corrupt("matrices nested more than 32 deep")
    mtype, nbytes, s, pos = _mat5_sub(buf, start, end, endian, "array flags")
    if mtype != 6 or nbytes != 8:
        raise _Corrupt(f"array flags at byte {start} are malformed")
    flags = int(_mat5_ints(buf, 6, 4, s, endian, "array flags")[0])
    cls, is_complex = flags & 0xFF, bool(flags & 0x800)
    mtype, nbytes, s, pos = _mat5_sub(buf, pos, end, endian, "dimensions")
    dims = _mat5_ints(buf, mtype, nbytes, s, endian, "dimensions")
    if dims.size < 2 or np.any(dims < 0):
        raise _Corrupt(f"the dimensions {dims.tolist()} at byte {s} are invalid")
    count = int(np.prod(dims, dtype=object))
    mtype, nbytes, s, pos = _mat5_sub(buf, pos, end, endian, "array name")
    if cls in _MX_NUMERIC:
        for part in ("real part", "imaginary part")[: 2 if is_complex else 1]:
            if count == 0 and pos >= end:
                return
            mtype, nbytes, s, pos = _mat5_sub(buf, pos, end, endian, part)
            if _mat5_count(mtype, nbytes, part) != count:
                raise _Corrupt(f"the {part} at byte {s} holds {nbytes} bytes of type {mtype} "
                               f"for {'x'.join(map(str, dims.tolist()))} values")
    elif cls == _MX_CHAR:
        if count == 0 and pos >= end:
            return
        mtype, nbytes, s, pos = _mat5_sub(buf, pos, end, endian, "text")
        if mtype != 16 and _mat5_count(mtype, nbytes, "text") != count:
            raise _Corrupt(f"the text at byte {s} does not match its dimensions")
    elif cls == _MX_SPARSE:
        if dims.size != 2:
            raise _Corrupt("a sparse matrix with more than two dimensions")
        n_rows, n_cols = int(dims[0]), int(dims[1])
        mtype, nbytes, s, pos = _mat5_sub(buf, pos, end, endian, "sparse row indices")
        ir = _mat5_ints(buf, mtype, nbytes, s, endian, "sparse row indices")
        mtype, nbytes, s, pos = _mat5_sub(buf, pos, end, endian, "sparse column pointers")
        jc = _mat5_ints(buf, mtype, nbytes, s, endian, "sparse column pointers")
        if jc.size != n_cols + 1 or jc[0] != 0 or np.any(np.diff(jc) < 0):
            raise _Corrupt(f"the sparse column pointers at byte {s} are invalid")
        nnz = int(jc[-1])
        if nnz > ir.size or np.any(ir[:nnz] < 0) or np.any(ir[:nnz] >= n_rows):
            raise _Corrupt(f"the sparse row indices before byte {s} are out of range")
        for part in ("real part", "imaginary part")[: 2 if is_complex else 1]:
            if pos >= end and nnz == 0:
                return
            mtype, nbytes, s, pos = _mat5_sub(buf, pos, end, endian, f"sparse {part}")
            if _mat5_count(mtype, nbytes, part) < nnz:
                raise _Corrupt(f"the sparse {part} at byte {s} has fewer values than entries")
    elif cls in (_MX_CELL, _MX_STRUCT, _MX_OBJECT):
        n_children = count
        if cls != _MX_CELL:
            if cls == _MX_OBJECT:
                mtype, nbytes, s, pos = _mat5_sub(buf, pos, end, endian, "class name")
            mtype, nbytes, s, pos = _mat5_sub(buf, pos, end, endian, "field name length")
            name_len = _mat5_ints(buf, mtype, nbytes, s, endian, "field name length")
            mtype, nbytes, s, pos = _mat5_sub(buf, pos, end, endian, "field names")
            if name_len.size != 1 or name_len[0] <= 0 or nbytes % int(name_len[0]):
                raise _Corrupt(f"the field names at byte {s} do not match their length")
            n_children = count * (nbytes // int(name_len[0]))
        for _ in range(n_children):
            mtype, nbytes, s, pos = _mat5_sub(buf, pos, end, endian, "element")
            if mtype != _MI_MATRIX:
                raise _Corrupt(f"an element at byte {s} is not a matrix (type {mtype})")
            _mat5_matrix(buf, s, s + nbytes, endian, depth + 1)
    elif cls == _MX_FUNCTION:
        while pos < end:
            mtype, nbytes, s, pos = _mat5_sub(buf, pos, end, endian, "function part")
            if mtype == _MI_MATRIX:
                _mat5_matrix(buf, s, s + nbytes, endian, depth + 1)
    elif cls != _MX_OPAQUE:  # opaque objects (strings, tables): left to scipy
        raise _Corrupt(f"unknown array class {cls} at byte {start}")
