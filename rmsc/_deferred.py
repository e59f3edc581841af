"""Attributes filled in on first access: an object rebuilt from a stored file may leave its
large attributes unread until something reads them (:mod:`rmsc.dashboard.store`).

A class opts in by deriving from :class:`Deferred`. A reader then builds the object without
some attributes and hands :func:`defer` a function per attribute that makes its value; the
first access runs it (once, whatever the threads) and the value becomes a plain attribute.
Pickling, copying, equality and ``dataclasses.replace`` read every attribute as before.
"""

from __future__ import annotations

import threading

_PENDING = "_deferred_attributes"


class _Pending:
    __slots__ = ("makers", "lock")

    def __init__(self):
        self.makers = {}
        self.lock = threading.Lock()


class Deferred:
    """Mixin: attributes :func:`defer` left unread are made on first access."""

    __slots__ = ()

    def __getattr__(self, name):  # only called when the attribute is not found otherwise
        pending = self.__dict__.get(_PENDING) if name != "__dict__" else None
        if pending is None or name not in pending.makers:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return _make(self, pending, name)

    def __getstate__(self):
        materialize(self)
        return super().__getstate__()


def _make(obj, pending, name):
    with pending.lock:
        state = obj.__dict__
        if name in state:  # another thread made it meanwhile
            return state[name]
        value = pending.makers[name]()  # raises: the attribute stays unread
        state[name] = value
        del pending.makers[name]
        if not pending.makers:
            state.pop(_PENDING, None)
        return value


def defer(obj, name, make):
    """Leave ``obj``'s attribute ``name`` unread: ``make()`` gives it on first access.
    ``obj``'s class derives from :class:`Deferred` and has no class attribute ``name``
    (which would answer instead)."""
    if not isinstance(obj, Deferred) or hasattr(type(obj), name):
        raise TypeError(f"{type(obj).__name__}.{name} cannot be deferred")
    obj.__dict__.pop(name, None)
    obj.__dict__.setdefault(_PENDING, _Pending()).makers[name] = make


def unread(obj):
    """The names of ``obj``'s attributes not read yet (empty for any other object)."""
    pending = getattr(obj, "__dict__", {}).get(_PENDING)
    return frozenset(pending.makers) if pending is not None else frozenset()


def materialize(obj):
    """Read every attribute ``obj`` left unread (their makers' errors are raised)."""
    for name in sorted(unread(obj)):
        getattr(obj, name)
    return obj


def state(obj):
    """``vars(obj)`` without the bookkeeping of unread attributes (what is read so far)."""
    return {k: v for k, v in vars(obj).items() if k != _PENDING}
