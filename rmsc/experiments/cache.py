"""Results of finished fits, one :class:`Record` each, kept in a JSON file so runs resume."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path


def _key(dataset, method, params, seed=0, data_id=""):
    key = f"{dataset}|{method}|{json.dumps(params, sort_keys=True)}"
    if seed != 0:
        key += f"|seed={seed}"
    return key + (f"|data={data_id}" if data_id else "")


@dataclass
class Record:
    """One method fitted with one setting on one dataset, scored by the paper's protocol."""

    dataset: str
    method: str
    params: dict
    acc_mean: float | None = None
    acc_std: float | None = None
    nmi_mean: float | None = None
    nmi_std: float | None = None
    fit_time: float | None = None
    error: str | None = None
    note: str | None = None
    ari_mean: float | None = None
    ari_std: float | None = None
    purity_mean: float | None = None
    purity_std: float | None = None
    seed: int = 0
    #: Best-single-view methods: the view scored above (chosen with the labels).
    view: int | None = None
    #: Best-single-view methods: the same scores for the view chosen *without*
    #: labels (largest eigengap): acc_mean, acc_std, nmi_mean, nmi_std, view.
    nolabel: dict | None = None
    #: The method's objective at the start and after every iteration, when it has one.
    objective: list | None = None
    #: Content fingerprint of the data (so a cache never mixes two versions of a dataset).
    data_id: str = ""

    def as_dict(self):
        return dict(self.__dict__)

    @property
    def key(self):
        return _key(self.dataset, self.method, self.params, self.seed, self.data_id)


class Cache:
    """Results of finished runs, kept in a JSON file (or in memory with ``path=None``)."""

    def __init__(self, path=None):
        self.path = Path(path) if path else None
        self.records = {}
        #: Keys of the records looked up or stored since this cache was opened.
        self.used = set()
        if self.path is not None and self.path.exists():
            try:
                raw = json.loads(self.path.read_text())
            except (OSError, ValueError) as exc:
                raise ValueError(
                    f"The results cache {self.path} cannot be read ({exc}); delete it to start over."
                ) from None
            for item in raw:
                rec = Record(**item)
                self.records[rec.key] = rec

    def get(self, dataset, method, params, seed=0, data_id=""):
        rec = self.records.get(_key(dataset, method, params, seed, data_id))
        if rec is not None:
            self.used.add(rec.key)
        return rec

    def put(self, rec):
        self.records[rec.key] = rec
        self.used.add(rec.key)
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps([r.as_dict() for r in self.records.values()], indent=1))
            tmp.replace(self.path)
