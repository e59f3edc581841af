"""A size guard for dense allocations.

Several steps need dense arrays whose size grows with the square of the
number of samples (n x n graphs, DiMSC's dense representations, the literal
paper form of RMSC). On a large data set such an allocation either fails deep
inside numpy with a bare ``MemoryError`` or, worse, succeeds and drives the
machine into swap. :func:`check_dense_fits` is called *before* those
allocations: it estimates the bytes needed, compares them with the memory
available, and refuses with a message that says what needed how much and what
to do (subsample, or pick a method that stays sparse).

The budget is the memory the operating system reports as available
(``MemAvailable``, capped by a cgroup limit when there is one). Set the
environment variable ``RMSC_MEMORY_BUDGET`` (bytes, or with a K/M/G/T suffix,
e.g. ``"2G"``) to impose a smaller budget, for instance on a shared machine.
"""

from __future__ import annotations

import os
from pathlib import Path

#: Environment variable that overrides the memory budget.
BUDGET_ENV = "RMSC_MEMORY_BUDGET"

_SUFFIXES = {"": 1, "B": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3, "T": 1024 ** 4}


class MemoryBudgetError(ValueError):
    """A dense allocation would not fit in the memory available."""


def format_bytes(n):
    """Human-readable size: ``format_bytes(3 * 2**30) == '3.0 GB'``."""
    n = float(n)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(n) < 1024 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TB"  # pragma: no cover


def parse_bytes(text):
    """Parse ``"512M"``, ``"2G"``, ``"1.5 GB"`` or ``"1000000"`` into bytes (int)."""
    s = str(text).strip().upper().replace(" ", "")
    if s.endswith("IB"):
        s = s[:-2]
    elif s.endswith("B") and len(s) > 1 and not s[-2].isdigit():
        s = s[:-1]
    unit = s[-1] if s and s[-1] in _SUFFIXES else ""
    number = s[: len(s) - len(unit)] if unit else s
    try:
        value = float(number)
    except ValueError:
        raise ValueError(
            f"{BUDGET_ENV}={text!r} is not a size; write bytes or a number with K, M, G or T "
            "(e.g. 2G)."
        ) from None
    if not value > 0:
        raise ValueError(f"{BUDGET_ENV}={text!r} must be a positive size (e.g. 2G).")
    return int(value * _SUFFIXES[unit])


def _meminfo_available():
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _cgroup_room():
    """Bytes left under a cgroup memory limit, or None without a limit."""
    for limit_file, usage_file in (
        ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),  # cgroup v2
        ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
         "/sys/fs/cgroup/memory/memory.usage_in_bytes"),  # cgroup v1
    ):
        try:
            raw = Path(limit_file).read_text().strip()
            if raw == "max":
                return None
            limit = int(raw)
            if limit >= 1 << 60:  # v1 reports "no limit" as a huge number
                return None
            usage = int(Path(usage_file).read_text().strip())
            return max(limit - usage, 0)
        except (OSError, ValueError):
            continue
    return None


def available_bytes():
    """Memory available for new allocations, in bytes.

    ``RMSC_MEMORY_BUDGET`` when set; otherwise the operating system's
    available memory, capped by the cgroup limit. None if neither can be
    determined (then no allocation is refused).
    """
    env = os.environ.get(BUDGET_ENV)
    if env:
        return parse_bytes(env)
    room = [b for b in (_meminfo_available(), _cgroup_room()) if b is not None]
    return min(room) if room else None


def dense_bytes(n_rows, n_cols, *, count=1, itemsize=8):
    """Bytes taken by ``count`` dense ``n_rows x n_cols`` arrays of ``itemsize`` bytes."""
    return int(n_rows) * int(n_cols) * int(count) * int(itemsize)


def check_dense_fits(n_rows, n_cols, *, count=1, what="this step", itemsize=8):
    """Refuse before allocating dense arrays that cannot fit in memory.

    Parameters
    ----------
    n_rows, n_cols : int
        Shape of each dense array (typically n_samples x n_samples).
    count : int, default=1
        How many such arrays are alive at the same time.
    what : str
        Who needs them, for the message (e.g. ``"DiMSC"``).
    itemsize : int, default=8
        Bytes per entry (8 for float64).

    Returns
    -------
    int
        The bytes needed.

    Raises
    ------
    MemoryBudgetError
        When the bytes needed exceed the memory available
        (:func:`available_bytes`). The message names ``what``, the bytes
        needed and available, and suggests subsampling.
    """
    need = dense_bytes(n_rows, n_cols, count=count, itemsize=itemsize)
    have = available_bytes()
    if have is not None and need > have:
        arrays = "array" if count == 1 else "arrays"
        source = (f" (the limit set by {BUDGET_ENV})" if os.environ.get(BUDGET_ENV)
                  else "")
        # Largest square size that would fit, to make the suggestion concrete.
        fit_n = int((have / (count * itemsize)) ** 0.5) if n_rows == n_cols else None
        hint = (f" about {fit_n} samples or fewer would fit" if fit_n is not None else "")
        raise MemoryBudgetError(
            f"{what} needs {count} dense {n_rows} x {n_cols} {arrays} "
            f"({format_bytes(need)}), but only {format_bytes(have)} of memory is available"
            f"{source}. Subsample the data (fewer samples;{hint}) or choose a method that "
            "keeps its graphs sparse (e.g. RMSC or SSC)."
        )
    return need
