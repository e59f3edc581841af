"""A stand-in for ``torch`` that reports one CUDA GPU, so that the GPU branches of
``rmsc.device`` and ``rmsc._array_api`` run on a machine without one.

It has what those branches ask of torch and nothing more: ``__version__``,
``cuda.is_available``, ``cuda.device_count``, ``cuda.get_device_properties``,
``cuda.mem_get_info``, ``cuda.memory_reserved`` and ``cuda.memory_allocated`` (and a
``Tensor`` class that nothing is an instance of, for other libraries' type checks). Every call
is recorded in :attr:`FakeTorch.calls`, so a test can check that the branch really asked
the (fake) driver. Tensors it has none: a test that goes on to fit puts the views on
array_api_strict's simulated device instead (``conftest.fake_cuda_torch``).
"""

import types

#: What the fake GPU reports (an H100-like card, 80 GiB, 60 GiB of it free).
NAME = "Fake GPU H100"
VERSION = "9.9.0+fake"
TOTAL = 80 * 2**30
FREE = 60 * 2**30
RESERVED = 3 * 2**30
ALLOCATED = 1 * 2**30


class FakeDevice:
    """What ``torch.device("cuda:0")`` answers to in the code under test."""

    def __init__(self, index=0):
        self.type = "cuda"
        self.index = index

    def __repr__(self):
        return f"device(type='cuda', index={self.index})"


def make(count=1):
    """A fresh fake ``torch`` module with ``count`` CUDA devices (0: CUDA unavailable)."""
    torch = types.ModuleType("torch")
    torch.__version__ = VERSION
    # for isinstance checks of other libraries (array_api_compat's is_torch_array): no
    # array ever is one
    torch.Tensor = type("Tensor", (), {})
    torch.device = FakeDevice
    torch.calls = []

    def recorded(name, value):
        def call(*args):
            torch.calls.append((name, args))
            return value(*args) if callable(value) else value
        return call

    def properties(index):
        if not 0 <= index < count:
            raise RuntimeError(f"Invalid device id {index}")  # as torch says it
        return types.SimpleNamespace(name=NAME, total_memory=TOTAL)

    torch.cuda = types.SimpleNamespace(
        is_available=recorded("is_available", count > 0),
        device_count=recorded("device_count", count),
        get_device_properties=recorded("get_device_properties", properties),
        mem_get_info=recorded("mem_get_info", (FREE, TOTAL)),
        memory_reserved=recorded("memory_reserved", RESERVED),
        memory_allocated=recorded("memory_allocated", ALLOCATED),
    )
    return torch
