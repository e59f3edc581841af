"""What tests in several folders share and that is not a fixture: small data sets (a union of
subspaces, random or coherent views), the paper's .mat files rebuilt from the bundled copies,
files written as users have them, an upload's file object, a gated task for the jobs, a file
damaged in place. Imported as ``from tests.support import ...``; the fixtures are in ``conftest.py``."""

import io
import threading
import time

import h5py
import numpy as np
import scipy.sparse as sp


def cell(*items, column=False):
    """A MATLAB cell array (object ndarray) of 1 x m, or m x 1 with column=True."""
    out = np.empty((len(items), 1) if column else (1, len(items)), dtype=object)
    for k, item in enumerate(items):
        out.flat[k] = item
    return out


#: The paper's .mat files as their README (and ../shared/datasets) describe them:
#: file -> (view key, label key, column cell?).
PAPER_MATS = {
    "digit_handwritten.mat": ("X", "Y", False),  # 1x6 cell: PIX uint8, FAC uint16, others double
    "reuters_1200.mat": ("fea", "gt", False),     # 1x5 cell of sparse CSC doubles
    "3sources.mat": ("X", "y", True),             # 3x1 cell of dense uint8 counts
}


def paper_mat_variables(file):
    """The variables of one of the paper's .mat files, rebuilt from the bundled copy.

    Same keys, cell shapes, storage types and label coding as the original files (Reuter and
    3-Sources hold exactly the original values; Digit's real-valued views are the bundled
    CSVs' 5-digit values), so tests of the loader's conventions need nothing outside the
    repository.
    """
    from rmsc.datasets import _bundle_io
    from rmsc._resources import sample_data_dir

    view_key, label_key, column = PAPER_MATS[file]
    if file == "digit_handwritten.mat":
        with np.load(sample_data_dir() / "digit.npz") as d:
            views = [d[str(n)] for n in d["view_names"]]
            labels = (d["labels"] + 1).astype(np.uint8)  # 1..10, as the file stores them
    else:
        stored = _bundle_io.load_views(sample_data_dir() / {
            "reuters_1200.mat": "reuter.npz", "3sources.mat": "3sources.npz"}[file])
        views, labels = stored["views"], stored["labels"]
    return {view_key: cell(*views, column=column), label_key: labels.reshape(-1, 1)}


def union_of_subspaces(n_per=20, n_clusters=3, dims=(8, 12), sub_dim=2, noise=0.01, seed=0):
    """Small multi-view union-of-subspaces data: (views, labels).

    Every cluster is a random sub_dim-dimensional latent subspace; each view
    sees the latent points through its own random linear map.
    """
    rng = np.random.default_rng(seed)
    latent_dim = n_clusters * sub_dim
    bases = [np.linalg.qr(rng.standard_normal((latent_dim, sub_dim)))[0] for _ in range(n_clusters)]
    latent = np.vstack([(B @ rng.standard_normal((sub_dim, n_per))).T for B in bases])
    labels = np.repeat(np.arange(n_clusters), n_per)
    views = []
    for d in dims:
        A = rng.standard_normal((latent_dim, d))
        views.append(latent @ A + noise * rng.standard_normal((latent.shape[0], d)))
    return views, labels


def coherence_views():
    """Two views of six unit samples, two 2-D subspaces of R^4 each; samples 3-5 repeat 0-2.

    View 0: (1, 0), (.6, .8), (0, 1): |inner products| .6 (0-1), 0 (0-2), .8 (1-2), so each
    sample's largest is .6, .8, .8 and mu = .6. View 1: (1, 0), (.8, .6), (.6, .8): .8, .6, .96,
    largest .8, .96, .96, mu = .8.
    """
    def view(a, b, c):
        X = np.zeros((6, 4))
        X[:3, :2] = X[3:, 2:] = [a, b, c]
        return X

    return [view((1, 0), (.6, .8), (0, 1)), view((1, 0), (.8, .6), (.6, .8))]


def random_views(rng, n, dims):
    """Random unit-norm views (samples as rows)."""
    views = [rng.standard_normal((n, d)) for d in dims]
    return [X / np.linalg.norm(X, axis=1, keepdims=True) for X in views]


def views_with_uninformative_samples():
    """Two views of three subspaces with samples that carry no information: three all-zero
    rows in the first view, a duplicated row in the second (the uninformative rule's cases)."""
    from rmsc.preprocessing import normalize_l2

    views, labels = union_of_subspaces(n_per=20, n_clusters=3, dims=(4, 12), seed=0)
    views = [normalize_l2(np.array(X)) for X in views]
    views[0][[3, 25, 47]] = 0.0
    views[1][10] = views[1][11]
    return views, labels


def monotone_balanced_runs(view_balance, kernel, first_seed, count=6, max_iter=10):
    """The view-balance models' monotonicity check over random small problems: for each of
    ``count`` seeds (odd ones with two all-zero samples in the first view, held by the
    uninformative rule) × both loss scales × both weightings, solve with ``view_balance``
    and assert the objective never increases and its terms add up to it. Yields
    ``(sol, views, mask, weighting, seen)`` (``seen``: the P of every iteration) for the
    caller's model-specific checks."""
    from rmsc import solver

    for seed in range(count):
        rng = np.random.default_rng(first_seed + seed)
        n = int(rng.integers(10, 35))
        dims = tuple(int(d) for d in rng.integers(2, 40, size=rng.integers(1, 4)))
        views = random_views(rng, n, dims)
        if seed % 2:
            views[0][rng.choice(n, 2, replace=False)] = 0.0
        mask = solver.uninformative_samples(views) if seed % 2 else None
        lam = float(10 ** rng.uniform(-2, 1.5))
        beta = float(10 ** rng.uniform(-3, 0))
        gamma = float(10 ** rng.uniform(-4, 0))
        factors = [solver.gram_factor(X) for X in views]
        for loss_scale in (None, "median"):
            for weighting in ("sample", "view"):
                seen = []
                sol = solver.solve(factors, lam, beta, gamma, max_iter=max_iter, tol=0,
                                   precision="float64", loss_scale=loss_scale,
                                   scale_power=1.0, uninformative=mask, weighting=weighting,
                                   view_balance=view_balance, kernel=kernel,
                                   callback=lambda it, f, P: seen.append(np.array(P)))
                f = np.concatenate([[sol.objective_init], sol.objective])
                where = (seed, loss_scale, weighting)
                assert np.all(np.diff(f) <= 1e-10 * (np.abs(f).max() + 1.0)), where
                total = sum(sol.terms[k] for k in solver.OBJECTIVE_TERMS)
                np.testing.assert_allclose(total, sol.objective)
                yield sol, views, mask, weighting, seen



def named(raw, name):
    """A BytesIO with a file name, as an upload."""
    f = io.BytesIO(raw)
    f.name = name
    return f


def write_mat73(path, variables):
    """Write ``variables`` in MATLAB's v7.3 layout with h5py.

    As MATLAB does: a 512-byte user block with the MAT header; every array is
    stored transposed (MATLAB is column-major) with a ``MATLAB_class``
    attribute; a cell array is a dataset of object references into the
    ``#refs#`` group; a sparse matrix is a group with ``MATLAB_sparse`` (the
    row count) holding CSC ``data``, ``ir`` (row indices) and ``jc`` (column
    pointers).
    """
    classes = {np.dtype(np.float64): "double", np.dtype(np.float32): "single",
               np.dtype(np.uint8): "uint8", np.dtype(np.uint16): "uint16",
               np.dtype(np.int32): "int32", np.dtype(np.int64): "int64",
               np.dtype(bool): "logical"}
    counter = [0]

    def put(group, name, value, refs):
        if sp.issparse(value):
            A = sp.csc_matrix(value)
            g = group.create_group(name)
            g.attrs["MATLAB_class"] = np.bytes_("double")
            g.attrs["MATLAB_sparse"] = np.uint64(A.shape[0])
            g.create_dataset("jc", data=A.indptr.astype(np.uint64))
            if A.nnz:
                g.create_dataset("ir", data=A.indices.astype(np.uint64))
                g.create_dataset("data", data=A.data)
            return g
        if isinstance(value, np.ndarray) and value.dtype == object:
            ref_array = np.empty(value.T.shape, dtype=h5py.ref_dtype)
            for idx in np.ndindex(value.shape):
                counter[0] += 1
                obj = put(refs, f"r{counter[0]}", value[idx], refs)
                ref_array[idx[::-1]] = obj.ref
            ds = group.create_dataset(name, data=ref_array, dtype=h5py.ref_dtype)
            ds.attrs["MATLAB_class"] = np.bytes_("cell")
            return ds
        if isinstance(value, str):
            ds = group.create_dataset(name, data=np.array([[ord(c)] for c in value], np.uint16))
            ds.attrs["MATLAB_class"] = np.bytes_("char")
            return ds
        arr = np.atleast_2d(np.asarray(value))
        ds = group.create_dataset(name, data=arr.T)
        ds.attrs["MATLAB_class"] = np.bytes_(classes[arr.dtype])
        return ds

    with h5py.File(path, "w", userblock_size=512) as f:
        refs = f.create_group("#refs#")
        for key, value in variables.items():
            put(f, key, value, refs)
    header = b"MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: test HDF5 schema 1.00 ."
    with open(path, "r+b") as fh:
        fh.write(header.ljust(116, b" ") + b"\0" * 8 + b"\x00\x02" + b"IM")


def _segfault(raw, fname):
    import os
    import signal

    os.kill(os.getpid(), signal.SIGSEGV)



def npz(views, labels=None):
    buf = io.BytesIO()
    arrays = {f"view{v}": np.asarray(X) for v, X in enumerate(views)}
    if labels is not None:
        arrays["labels"] = np.asarray(labels)
    np.savez(buf, **arrays)
    return buf.getvalue()


def subspaces(n_per=20, n_clusters=3, dims=(8, 12), **kw):
    return union_of_subspaces(n_per=n_per, n_clusters=n_clusters, dims=dims, **kw)


def _one_sample():
    return "one_sample.npz", npz([np.ones((1, 5)), np.arange(4.0)[None]], [1])


def _no_labels():
    views, _ = subspaces()
    return "no_labels.npz", npz(views)


def _hundred_classes():
    """100 classes of 8 samples: 800 samples, more than the pages draw whole (the matrices'
    MAX_MATRIX_SIDE, the weights' MAX_WEIGHT_COLUMNS: their pooled drawings are the ones
    checked), so every page draws as for a larger set; what the tests of it check depends on
    the number of classes, and 16 per class doubled the fits' and the pages' work."""
    views, y = subspaces(n_per=8, n_clusters=100, dims=(64, 64, 64), noise=0.05)
    return "hundred_classes.npz", npz(views, y)



#: Upper bound of a wait for a thread of the test process (a job's, a callback's): a loaded
#: machine holds a runnable thread back for seconds at times, and nothing waited on here is
#: timed (every wait returns as soon as its condition holds).
THREAD_WAIT = 60


def _wait_until(pred, timeout=THREAD_WAIT):
    t0 = time.time()
    while not pred():
        if time.time() - t0 > timeout:
            raise AssertionError("condition not reached")
        time.sleep(0.005)


class Gate:
    """A task that records progress and waits for permission at every step."""

    def __init__(self, steps=5, fail=False):
        self.steps = steps
        self.fail = fail
        self.go = threading.Semaphore(0)

    def __call__(self, job):
        done = 0
        for i in range(self.steps):
            self.go.acquire()
            job.record((i + 1, 10.0 - i), latest=i)
            job.report(i + 1, self.steps, f"step {i + 1}")
            done = i + 1
            if job.stop_requested:
                break
        if self.fail:
            raise ValueError("bad parameter: try another")
        return done



def scoring_seconds(n, c, probe, times=1):
    """By hand: scoring 20 k-means runs of n samples and c clusters against the labels
    (outside a fit's recorded time, rmsc.costs.COSTS["scoring"]), ``times`` times, at the
    speed probe ``probe`` (s per 256^3 multiply-adds): a constant, per run, per run and
    sample, per run and c^3 (the assignment)."""
    from rmsc import _costs

    k = _costs.COSTS["scoring"]
    units = k["const"] + 20 * k["runs"] + 20 * n * k["samples"] + 20 * c ** 3 * k["assign"]
    return times * units * probe / 256 ** 3


def damage_file(path, how, inside):
    """Damage ``path`` in place (the same file, as a disk error would): its bytes
    ``inside`` changed, or the file cut off before them (``how``: "flipped" or "cut")."""
    data = path.read_bytes()
    at = data.index(inside) + len(inside) // 2
    with open(path, "r+b") as f:
        if how == "cut":
            f.truncate(at)
        else:
            f.seek(at)
            f.write(bytes(b ^ 0xFF for b in data[at:at + 16]))


class ElsewhereSender:
    """A sender like rmsc.dashboard.DaskSender: the task runs elsewhere (a thread standing
    for a worker process), and the job's own thread ends as soon as the job is cancelled
    (after :meth:`relay`, the cancel's way to the worker: at once here), while the task
    winds down on its own at its next step."""

    def relay(self):
        """Called when the job is cancelled, before its thread ends."""

    def run(self, job, task):
        from rmsc import dashboard as dash

        out = {}

        def work():
            try:
                out["result"] = task(job)
            except dash.Cancelled:
                pass

        worker = threading.Thread(target=work, daemon=True)
        worker.start()
        while worker.is_alive():
            if job.cancelled:
                self.relay()
                raise dash.Cancelled(job.label)
            job.wait_for_request(0.01)
        return out.get("result")
