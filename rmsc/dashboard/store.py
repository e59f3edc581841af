"""Results kept on disk across sessions and server restarts: a bounded folder of ``.npz`` files
that are read without unpickling anything.

:class:`DiskStore` is the layer under the server's in-memory :class:`~rmsc.dashboard.ResultCache`:
what a fit, a comparison, a sensitivity grid or a suggestion computed once is answered from
here after the last tab closed or the server restarted (docs/dashboard.md, "The result
cache"). Each entry is one NumPy ``.npz`` file: the arrays, plus a JSON header (a schema
number, the library's code version and the entry's key) describing how to rebuild the result
from those arrays with :func:`decode`. Nothing is unpickled (``allow_pickle=False``) and only
the classes the store was given are rebuilt, so a file that is damaged, written by another
program or by another version of rmsc is discarded with a log line, never loaded blindly.
An entry's large arrays (a fit's Z* and affinity) are read when first touched, not with the
entry (:data:`LAZY_BYTES`, :mod:`rmsc._deferred`): the Solve page shows a fit without them.

Why not ``joblib.Memory`` or ``diskcache``: both store Python objects as pickles and unpickle
what they find, which runs code named by the file; a folder a user can write to (or a disk
error) would then be trusted with the server's process. The bookkeeping that remains — atomic
writes, least recently used eviction under a byte cap — is a few lines over the file system.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import logging
import os
import sys
import tempfile
import threading
import weakref
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .. import __version__
from .._deferred import Deferred, defer, materialize, state

log = logging.getLogger("rmsc.dashboard")

#: Where results are kept: a folder (created, owned by the server's user, mode 0700), or
#: "off" (or empty) for no disk layer.
CACHE_DIR_ENV = "RMSC_CACHE_DIR"
#: The folder's size cap in bytes (default :data:`DEFAULT_CACHE_BYTES`).
CACHE_BYTES_ENV = "RMSC_CACHE_BYTES"
#: The default cap: 2 GiB.
DEFAULT_CACHE_BYTES = 2 << 30
#: The format of an entry: a file with another number is discarded. 2: the header names the
#: arrays read on demand ("deferred").
SCHEMA = 2
#: An array of at least this many bytes is read when something touches it, not with the
#: entry (when it sits in an attribute of a :class:`rmsc._deferred.Deferred` object).
LAZY_BYTES = 1 << 20
_MAGIC = "rmsc-result"
_HEADER = "__header__"
_SUFFIX = ".npz"
#: pandas' text columns (pandas >= 3 gives "str" by default), kept as their Python strings.
_TEXT_DTYPES = ("str", "string")


class NotStorable(TypeError):
    """A value the store cannot write safely (it stays in memory only)."""


class CorruptEntry(ValueError):
    """An entry that does not decode to what its header promises."""


def default_folder():
    """The per-user cache folder: ``$RMSC_CACHE_DIR``, else the platform's cache directory's
    ``rmsc/results`` (``$XDG_CACHE_HOME`` or ``~/.cache`` on Linux). None when switched off."""
    env = os.environ.get(CACHE_DIR_ENV)
    if env is not None:
        return None if env.strip().lower() in ("", "off", "none", "0") else Path(env).expanduser()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "rmsc" / "results"


def default_cap():
    """The size cap: ``$RMSC_CACHE_BYTES`` or :data:`DEFAULT_CACHE_BYTES` (ValueError if bad)."""
    raw = os.environ.get(CACHE_BYTES_ENV)
    if raw is None or not raw.strip():
        return DEFAULT_CACHE_BYTES
    try:
        cap = int(float(raw))
    except ValueError:
        raise ValueError(f"{CACHE_BYTES_ENV}={raw!r} is not a number of bytes; "
                         "set it to e.g. 1e9, or unset it.") from None
    if cap <= 0:
        raise ValueError(f"{CACHE_BYTES_ENV} must be positive; use {CACHE_DIR_ENV}=off to "
                         "keep no results on disk.")
    return cap


_CODE_VERSION = None


def code_version():
    """The library's version and a digest of its source files: a result computed by other
    code is never served (an edit to the solver changes every key)."""
    global _CODE_VERSION
    if _CODE_VERSION is None:
        root = Path(__file__).resolve().parents[1]
        digest = hashlib.sha256()
        for path in sorted(root.rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
        _CODE_VERSION = f"{__version__}+{digest.hexdigest()[:16]}"
    return _CODE_VERSION


# ---------------------------------------------------------------------------------------
# The codec: a result as a JSON tree plus named arrays, and back
# ---------------------------------------------------------------------------------------

def _qualname(cls):
    return f"{cls.__module__}.{cls.__qualname__}"


def _bytes_equal(a, b):
    """Whether two arrays of one dtype and shape hold the same bytes (NaNs and signed zeros
    included, so that the one stored stands exactly for the other)."""
    return np.array_equal(np.ascontiguousarray(a).reshape(-1).view(np.uint8),
                          np.ascontiguousarray(b).reshape(-1).view(np.uint8))


class _Encoder:
    def __init__(self, types):
        self.types = {_qualname(t) for t in types}
        self.arrays = {}
        self._ids = {}
        self._keep = []  # the objects whose id names an array, alive until the end
        self._by_layout = {}  # (dtype, shape) -> names of the arrays stored with it

    def array(self, a):
        if id(a) in self._ids:
            return {"@": "nd", "a": self._ids[id(a)]}
        if a.dtype.hasobject:
            return {"@": "objnd", "shape": list(a.shape), "v": [self(x) for x in a.ravel()]}
        self._keep.append(a)
        # A fit result holds its consensus and affinity twice (its own and the estimator's,
        # equal copies): an array equal byte for byte to one already stored is stored once.
        same = self._by_layout.setdefault((a.dtype.str, a.shape), [])
        for name in same:
            if _bytes_equal(self.arrays[name], a):
                self._ids[id(a)] = name
                return {"@": "nd", "a": name}
        name = f"a{len(self.arrays)}"
        self.arrays[name] = a
        self._ids[id(a)] = name
        same.append(name)
        return {"@": "nd", "a": name}

    def __call__(self, obj):
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, (int, float)) and type(obj) in (int, float):
            return obj
        if isinstance(obj, np.generic):
            return {"@": "scalar", "v": self.array(np.asarray(obj))}
        if isinstance(obj, np.ndarray):
            return self.array(obj)
        if isinstance(obj, (list, tuple)):
            return {"@": type(obj).__name__, "v": [self(x) for x in obj]}
        if isinstance(obj, dict):
            return {"@": "dict", "k": [self(k) for k in obj], "v": [self(v) for v in obj.values()]}
        if sp.issparse(obj) and obj.format in ("csr", "csc"):
            return {"@": "sparse", "fmt": obj.format, "array": not isinstance(obj, sp.spmatrix),
                    "shape": list(obj.shape), "data": self.array(obj.data),
                    "indices": self.array(obj.indices), "indptr": self.array(obj.indptr)}
        if isinstance(obj, pd.DataFrame):
            return self.frame(obj)
        if _qualname(type(obj)) not in self.types:
            raise NotStorable(f"a {type(obj).__name__} is not a result type the store keeps")
        materialize(obj)  # read from disk with attributes still unread: read them now
        if dataclasses.is_dataclass(obj):
            fields = dataclasses.fields(obj)
            if not all(f.init for f in fields):
                raise NotStorable(f"{type(obj).__name__} has fields set outside __init__")
            return {"@": "dc", "cls": _qualname(type(obj)),
                    "f": {f.name: self(getattr(obj, f.name)) for f in fields}}
        if hasattr(obj, "get_params"):
            params = obj.get_params(deep=False)
            attrs = state(obj)
            fitted = {k: v for k, v in attrs.items() if k.endswith("_") and not k.startswith("_")}
            if set(attrs) - set(params) - set(fitted):
                raise NotStorable(f"{type(obj).__name__} holds state besides its parameters "
                                  "and fitted attributes")
            return {"@": "est", "cls": _qualname(type(obj)), "params": self(params),
                    "attrs": self(fitted)}
        raise NotStorable(f"a {type(obj).__name__} cannot be stored")

    def column(self, col):
        if isinstance(col.dtype, np.dtype):
            return self.array(col.to_numpy())
        if str(col.dtype) not in _TEXT_DTYPES:
            raise NotStorable(f"a DataFrame column of dtype {col.dtype} cannot be stored")
        return {"@": "text", "dtype": str(col.dtype),
                "v": self.array(col.to_numpy(dtype=object))}

    def frame(self, df):
        index = df.index
        if isinstance(index, pd.RangeIndex):
            idx = {"@": "range", "v": [index.start, index.stop, index.step]}
        elif isinstance(index.dtype, np.dtype) and not isinstance(index, pd.MultiIndex):
            idx = {"@": "index", "v": self.array(index.to_numpy())}
        else:
            raise NotStorable("a DataFrame with this index cannot be stored")
        return {"@": "df", "columns": self(list(df.columns)), "index": idx,
                "data": [self.column(df.iloc[:, j]) for j in range(df.shape[1])]}


def _names(node):
    """The names of the arrays a header's node refers to."""
    if isinstance(node, dict):
        if node.get("@") == "nd":
            yield node.get("a")
        for v in node.values():
            yield from _names(v)
    elif isinstance(node, list):
        for v in node:
            yield from _names(v)


class _Decoder:
    def __init__(self, types, arrays, entry=None):
        self.types = {_qualname(t): t for t in types}
        self.arrays = arrays
        self.entry = entry  # an _Entry whose deferred arrays are read when touched, or None

    def array(self, node):
        name = node.get("a")
        if self.entry is not None and name in self.entry.deferred:
            return self.entry.read(name)
        if name not in self.arrays or name == _HEADER:
            raise CorruptEntry(f"array {name!r} is missing")
        return self.arrays[name]

    def deferrable(self, cls, name, node):
        """Whether attribute ``name`` of a ``cls`` can be left unread: it holds an array
        not read yet, and ``cls`` makes deferred attributes on first access."""
        return (self.entry is not None and issubclass(cls, Deferred)
                and isinstance(name, str) and not hasattr(cls, name)
                and any(n in self.entry.unread for n in _names(node)))

    def later(self, node):
        """``node`` decoded when its attribute is first read (CorruptEntry if it cannot be:
        the entry is then discarded, with a log line)."""
        try:
            return self(node)
        except CorruptEntry:
            raise
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            raise self.entry.fail(f"{type(exc).__name__}: {exc}") from None

    def cls(self, node):
        cls = self.types.get(node.get("cls"))
        if cls is None:
            raise CorruptEntry(f"class {node.get('cls')!r} is not one the store rebuilds")
        return cls

    def __call__(self, node):
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if not isinstance(node, dict):
            raise CorruptEntry(f"unexpected {type(node).__name__} in the header")
        tag = node.get("@")
        if tag == "nd":
            return self.array(node)
        if tag == "scalar":
            return self(node["v"])[()]
        if tag == "objnd":
            out = np.empty(len(node["v"]), dtype=object)
            for k, x in enumerate(node["v"]):
                out[k] = self(x)
            return out.reshape(node["shape"])
        if tag == "list":
            return [self(x) for x in node["v"]]
        if tag == "tuple":
            return tuple(self(x) for x in node["v"])
        if tag == "dict":
            return {self(k): self(v) for k, v in zip(node["k"], node["v"], strict=True)}
        if tag == "text":
            if node["dtype"] not in _TEXT_DTYPES:
                raise CorruptEntry(f"dtype {node['dtype']!r} is not one the store rebuilds")
            return pd.array(self(node["v"]), dtype=node["dtype"])
        if tag == "sparse":
            kind = {("csr", False): sp.csr_matrix, ("csc", False): sp.csc_matrix,
                    ("csr", True): sp.csr_array, ("csc", True): sp.csc_array}
            make = kind[(node["fmt"], bool(node["array"]))]
            return make((self(node["data"]), self(node["indices"]), self(node["indptr"])),
                        shape=tuple(node["shape"]))
        if tag == "df":
            idx = node["index"]
            index = (pd.RangeIndex(*idx["v"]) if idx["@"] == "range"
                     else pd.Index(self(idx["v"])))
            columns = self(node["columns"])
            data = [self(c) for c in node["data"]]
            if len(data) != len(columns):
                raise CorruptEntry("a table's columns and data differ in number")
            df = pd.DataFrame({j: col for j, col in enumerate(data)}, index=index)
            df.columns = columns
            return df
        if tag == "dc":
            cls = self.cls(node)
            fields = node["f"]
            later = {k for k, v in fields.items() if self.deferrable(cls, k, v)}
            obj = cls(**{k: None if k in later else self(v) for k, v in fields.items()})
            for k in later:
                defer(obj, k, functools.partial(self.later, fields[k]))
            return obj
        if tag == "est":
            est = self.cls(node)(**self(node["params"]))
            attrs = node["attrs"]
            if not isinstance(attrs, dict) or attrs.get("@") != "dict":
                raise CorruptEntry("an estimator's attributes are not a mapping")
            for k, v in zip(attrs["k"], attrs["v"], strict=True):
                k = self(k)
                if not (isinstance(k, str) and k.endswith("_")):
                    raise CorruptEntry(f"{k!r} is not a fitted attribute")
                if self.deferrable(type(est), k, v):
                    defer(est, k, functools.partial(self.later, v))
                else:
                    setattr(est, k, self(v))
            return est
        raise CorruptEntry(f"unknown node {tag!r}")


def encode(value, types=()):
    """``(tree, arrays)``: ``value`` as a JSON-able tree and the arrays it names.

    Kept: None, bool, int, float, str, NumPy arrays and scalars (not of object dtype, whose
    elements are encoded one by one), lists, tuples, dicts, CSR/CSC sparse matrices, pandas
    DataFrames of NumPy dtypes, and instances of ``types`` (dataclasses, or estimators by
    their parameters and fitted attributes). Anything else raises :class:`NotStorable`.
    An array referenced twice, or equal byte for byte to another, is stored once (and
    decodes to one array)."""
    enc = _Encoder(types)
    return enc(value), enc.arrays


def decode(tree, arrays, types=(), entry=None):
    """The value :func:`encode` described (:class:`CorruptEntry` on anything unexpected).

    ``entry``: the open file whose deferred arrays are read on demand (:meth:`DiskStore.get`);
    an attribute of a :class:`rmsc._deferred.Deferred` object that holds one is decoded when
    first read."""
    try:
        return _Decoder(types, arrays, entry)(tree)
    except CorruptEntry:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise CorruptEntry(f"{type(exc).__name__}: {exc}") from None


def read_all(value):
    """``value`` (a result :meth:`DiskStore.get` gave) with every attribute it left unread
    read now, in it and in the objects it holds (a fit's estimator); :class:`CorruptEntry`
    when its file turns out damaged (the entry is then discarded, with a log line)."""
    if isinstance(value, Deferred):
        materialize(value)
        for v in state(value).values():
            read_all(v)
    return value


# ---------------------------------------------------------------------------------------
# The folder
# ---------------------------------------------------------------------------------------

def _own_folder(folder):
    """Create ``folder`` (mode 0700) and check that this user owns it and nobody else may
    write to it; ValueError saying what is wrong otherwise."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not folder.is_dir() or folder.is_symlink():
        raise ValueError(f"{folder} is not a folder")
    st = folder.stat()
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise ValueError(f"{folder} belongs to another user")
    if st.st_mode & 0o022:
        raise ValueError(f"{folder} may be written by other users (mode {st.st_mode & 0o777:o})")


def side_file(name, folder=None):
    """The path of a small file of the server's own kept beside the results (the learned
    pace of :class:`rmsc.dashboard.Pace`): ``name`` in ``folder`` (None:
    :func:`default_folder`), the folder created and checked as the store's. None when the
    disk layer is switched off or the folder is not safe to use (said in the log)."""
    try:
        folder = default_folder() if folder is None else Path(folder)
        if folder is None:
            return None
        _own_folder(folder)
    except (OSError, ValueError) as exc:
        log.warning("%s is not kept on disk: %s", name, exc)
        return None
    return folder / name


def read_json(path, max_bytes=1 << 20):
    """The JSON value in ``path`` (parsed, never executed), or None when the file is missing;
    ValueError when it is larger than ``max_bytes``, not UTF-8 or not JSON."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return None
    if size > max_bytes:
        raise ValueError(f"{size} bytes, more than {max_bytes}")
    try:
        return json.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text: {exc}") from None


def _replace_atomically(path, suffix, write):
    """Write a file beside ``path`` with ``write(f)`` (binary), then put it in ``path``'s
    place in one step (a reader sees the old file or the new one, never half of one);
    ``write`` returning False keeps nothing. The temporary file is removed on any error,
    which is raised again."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            keep = write(f)
        if keep is False:
            os.unlink(tmp)
            return False
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return True


def write_json(path, value):
    """Write ``value`` as JSON to ``path`` atomically (a reader sees the old file or the new
    one, never half of one); True when written, False (logged) on a disk error."""
    path = Path(path)
    try:
        data = json.dumps(value, allow_nan=False).encode("utf-8")
        return _replace_atomically(path, ".json", lambda f: f.write(data))
    except (OSError, TypeError, ValueError) as exc:
        log.warning("could not write %s: %s", path.name, exc)
        return False


class _Entry:
    """An entry's file, held open while some of its large arrays are unread: each is read
    (its CRC checked by the zip reader, never unpickled) when an attribute holding it is
    first touched. A damaged array discards the entry then, with a log line, and raises
    :class:`CorruptEntry`. Open by its descriptor, the file read is the one the header came
    from, even if the store has since evicted or replaced it."""

    def __init__(self, store, key, path, file, z, deferred):
        self.store, self.key, self.path, self.file, self.z = store, key, path, file, z
        self.identity = _identity(os.fstat(file.fileno()))
        self.deferred = frozenset(deferred)
        self.unread = set(deferred)
        self.loaded = {}
        self.failed = None
        self.lock = threading.Lock()
        self.value = lambda: None  # (a weak reference to) the value read from this file

    def read(self, name):
        with self.lock:
            if name in self.loaded:
                return self.loaded[name]
            if self.failed is not None:
                raise CorruptEntry(self.failed)
            try:
                a = self.z[name]
            except Exception as exc:  # a damaged file: whatever the reader raised
                raise self._fail(f"{type(exc).__name__}: {exc}") from None
            self.loaded[name] = a
            self.unread.discard(name)
            if not self.unread:
                self._close()
            return a

    def fail(self, why):
        """Discard the entry (log line, file removed, memory layers told); the error to raise."""
        with self.lock:
            return self._fail(why)

    def _fail(self, why):
        if self.failed is None:
            self.failed = (f"the kept result {self.path.name} is damaged ({why}); it was "
                           "discarded and will be computed again")
            self._close()
            self.store._discard_entry(self, why)
        return CorruptEntry(self.failed)

    def _close(self):
        self.z.close()
        self.file.close()

    def close(self):
        with self.lock:
            self._close()

    def __del__(self):
        try:
            self._close()
        except Exception:  # noqa: BLE001 - interpreter shutdown: nothing left to close
            pass


def _identity(st):
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


class DiskStore:
    """Results in a folder, one ``.npz`` per key, least recently used evicted past ``cap``.

    ``types``: the classes (dataclasses, estimators) an entry may rebuild. Every entry
    records :data:`SCHEMA`, the :func:`code_version` and its key; :meth:`get` returns None
    for a missing entry and discards (with a warning in the log) one that does not decode,
    is of another schema or version, or holds another key. :meth:`put` never raises: a
    value it cannot store safely stays in memory only.
    """

    def __init__(self, folder, cap=DEFAULT_CACHE_BYTES, types=(), version=None):
        self.folder = Path(folder)
        _own_folder(self.folder)
        self.cap = int(cap)
        self.types = tuple(types)
        self.version = version or code_version()
        self._listeners = []

    def on_discard(self, listener):
        """Call ``listener(key, value)`` when an entry read earlier turns out damaged as one
        of its large arrays is read (the memory layer forgets ``value``, the one read from
        it; None when unknown)."""
        self._listeners.append(listener)

    @classmethod
    def from_env(cls, types=()):
        """The store :func:`default_folder` and :func:`default_cap` name, or None (switched
        off, or the folder is not safe to use: said in the log)."""
        try:
            folder = default_folder()
            if folder is None:
                return None
            return cls(folder, default_cap(), types)
        except (OSError, ValueError) as exc:
            log.warning("results are not kept on disk: %s", exc)
            return None

    def _key_json(self, key):
        tree, arrays = encode(key)
        if arrays:
            raise NotStorable("a key holds only plain values (no arrays)")
        return json.dumps(tree, sort_keys=True)

    def path(self, key):
        """The file of ``key`` (NotStorable when ``key`` is not plain values)."""
        text = f"{SCHEMA}\n{self.version}\n{self._key_json(key)}"
        return self.folder / (hashlib.sha256(text.encode()).hexdigest()[:40] + _SUFFIX)

    def _discard(self, path, why):
        log.warning("discarded the cached result %s: %s", path.name, why)
        try:
            path.unlink()
        except OSError:
            pass

    def _header(self, z, key_json, path):
        header = json.loads(str(z[_HEADER][()]))
        if not isinstance(header, dict) or header.get("magic") != _MAGIC:
            raise CorruptEntry("not an rmsc result")
        if header.get("schema") != SCHEMA or header.get("version") != self.version:
            raise CorruptEntry(f"written by schema {header.get('schema')}, "
                               f"rmsc {header.get('version')}")
        if json.dumps(header.get("key"), sort_keys=True) != key_json:
            raise CorruptEntry("it holds the result of another key")
        return header

    def _discard_entry(self, entry, why):
        log.warning("discarded the cached result %s: %s", entry.path.name, why)
        try:  # the file read, unless another has replaced it since
            if _identity(os.stat(entry.path))[:2] == entry.identity[:2]:
                entry.path.unlink()
        except OSError:
            pass
        for listener in list(self._listeners):
            listener(entry.key, entry.value())

    def _open(self, key, body):
        try:
            key_json, path = self._key_json(key), self.path(key)
        except NotStorable:
            return None
        try:
            with np.load(path, allow_pickle=False) as z:
                header = self._header(z, key_json, path)
                out = body(z, header)
        except FileNotFoundError:
            return None
        except Exception as exc:  # a damaged or foreign file: whatever it raised
            self._discard(path, f"{type(exc).__name__}: {exc}")
            return None
        return path, out

    def __contains__(self, key):
        """Whether a valid-looking entry of ``key`` is there (its header is read)."""
        return self._open(key, lambda z, header: True) is not None

    def get(self, key, default=None):
        """The value stored under ``key`` (marked as just used), else ``default``.

        Its header and small arrays are read now; an array of :data:`LAZY_BYTES` or more in
        an attribute of a :class:`rmsc._deferred.Deferred` object (a fit's Z* and affinity)
        is read when the attribute is first touched, from the file held open meanwhile."""
        try:
            key_json, path = self._key_json(key), self.path(key)
        except NotStorable:
            return default
        try:
            file = open(path, "rb")
        except FileNotFoundError:
            return default
        except OSError as exc:
            log.warning("could not read the cached result %s: %s", path.name, exc)
            return default
        entry = None
        try:
            z = np.load(file, allow_pickle=False)
            header = self._header(z, key_json, path)
            deferred = header.get("deferred", [])
            if not (isinstance(deferred, list)
                    and all(isinstance(n, str) and n != _HEADER and n in z.files
                            for n in deferred)):
                raise CorruptEntry("its list of arrays read on demand names other arrays")
            entry = _Entry(self, key, path, file, z, deferred)
            arrays = {name: z[name] for name in z.files
                      if name != _HEADER and name not in entry.deferred}
            value = decode(header["value"], arrays, self.types, entry)
        except Exception as exc:  # a damaged or foreign file: whatever it raised
            file.close()
            if entry is None or entry.failed is None:  # (else said and removed already)
                self._discard(path, f"{type(exc).__name__}: {exc}")
            return default
        if not entry.unread:
            entry.close()
        else:
            try:
                entry.value = weakref.ref(value)
            except TypeError:  # a container: the memory layer forgets the key whatever it holds
                pass
        try:
            os.utime(path)  # the least recently used go first
        except OSError:
            pass
        return value

    def put(self, key, value):
        """Store ``value`` under ``key`` (atomically); True when it was written."""
        try:
            key_tree, _ = encode(key)
            path = self.path(key)
            tree, arrays = encode(value, self.types)
        except NotStorable as exc:
            log.debug("not kept on disk: %s", exc)
            return False
        header = {"magic": _MAGIC, "schema": SCHEMA, "version": self.version,
                  "key": key_tree, "value": tree,
                  "deferred": [n for n, a in arrays.items() if a.nbytes >= LAZY_BYTES]}
        try:
            text = json.dumps(header, allow_nan=True)
        except (TypeError, ValueError) as exc:
            log.debug("not kept on disk: %s", exc)
            return False

        def write(f):
            np.savez(f, **{_HEADER: np.array(text)}, **arrays)
            if f.tell() > self.cap:
                log.debug("not kept on disk: %s is larger than the cap", path.name)
                return False
            return True

        try:
            if not _replace_atomically(path, _SUFFIX, write):
                return False
        except (OSError, ValueError) as exc:
            log.warning("could not keep a result on disk: %s", exc)
            return False
        self.evict()
        return True

    def entries(self):
        """``[(path, bytes, last used)]`` of the entries, least recently used first."""
        out = []
        for path in self.folder.glob("*" + _SUFFIX):
            try:
                st = path.stat()
            except OSError:
                continue
            out.append((path, st.st_size, st.st_mtime))
        return sorted(out, key=lambda e: e[2])

    @property
    def total_bytes(self):
        return sum(size for _, size, _ in self.entries())

    def evict(self):
        """Remove the least recently used entries until the folder holds at most ``cap``."""
        entries = self.entries()
        total = sum(size for _, size, _ in entries)
        for path, size, _ in entries:
            if total <= self.cap:
                break
            try:
                path.unlink()
            except OSError:
                continue
            total -= size

    def clear(self):
        """Remove every entry."""
        for path, _, _ in self.entries():
            try:
                path.unlink()
            except OSError:
                pass
