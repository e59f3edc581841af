"""Lazy attributes of a package (PEP 562): a public name is imported from its module at its
first use, so that importing the package imports none of its heavy modules. Used by
:mod:`rmsc` and :mod:`rmsc.datasets`."""

from __future__ import annotations

import importlib
import importlib.util


def lazy_attributes(package, where, public):
    """``(__getattr__, __dir__)`` for ``package`` (its ``__name__``).

    ``where`` maps a public name to the module (of the package) defining it, a module's own
    name to itself; any other submodule of the package is found too (``rmsc.solver`` works
    as it did when the package imported everything). ``public`` is the package's
    ``__all__``. A name is imported once: it is then a plain attribute of the package.
    """

    def __getattr__(name):
        module_name = where.get(name, name)
        if module_name == name and not _is_submodule(package, name):
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(f"{package}.{module_name}")
        value = module if module_name == name else getattr(module, name)
        setattr(importlib.import_module(package), name, value)  # next time: plain attribute
        return value

    def __dir__():
        return sorted(set(vars(importlib.import_module(package))) | set(public))

    return __getattr__, __dir__


def _is_submodule(package, name):
    """True for a module of ``package``."""
    return not name.startswith("__") and \
        importlib.util.find_spec(f"{package}.{name}") is not None
