"""Multi-view datasets: the data layer.

Where things live (one small module each, public names re-exported here):

======================  ===============================================================
``_dataset``            :class:`MultiViewDataset`, the immutable type every loader returns;
                        :func:`repeats_text` (how its repeated samples are said)
``_bundled``            the data shipped in ``sample_data/``: :func:`load_bundled`,
                        :func:`bundled_names`, :func:`load_digit`, :func:`load_digit_small`,
                        :func:`load_reuter`, :func:`load_3sources`
``_bundle_io``          the bundled .npz layout (views exactly as the source .mat holds them)
``_synthetic``          :func:`make_multiview_subspaces` (a known answer, for teaching/tests)
``_preprocess``         :func:`preprocess` a whole dataset (the per-view transforms are
                        :mod:`rmsc.preprocessing`, which the estimators use too)
``_outliers``           :func:`inject` outliers, recorded exactly (scoring: :mod:`rmsc.outliers`)
``_load``               :func:`load`: a user's file or upload, format recognised from content
``_mat5``, ``_mat73``   MATLAB v5 (scipy.io) and v7.3 (HDF5 via h5py) readers
``_matlab``             MATLAB variables to views and labels (cell arrays, key names)
``_npz``, ``_csvzip``   NumPy .npz archives; .zip archives of CSV files
``_conventions``        what the formats share: key names, orientation, label coding, checks
``_errors``             :class:`DataLoadError` and the memory guard of every reader
======================  ===============================================================

Add a file format: a reader module returning ``(views, view_names, labels, notes)``
through the helpers of ``_conventions``, and one entry in ``_load._PARSERS``.

Importing this package imports none of those modules: each public name is imported on
first use (PEP 562), so that the file reader's child program
(:mod:`rmsc.datasets._isolate`) starts without pandas or scikit-learn.
"""

from .._lazy import lazy_attributes

#: Public name -> the module defining it.
_WHERE = {
    "DIGIT_SMALL_PER_CLASS": "_bundled",
    "SAMPLE_DATA": "_bundled",
    "bundled_names": "_bundled",
    "load_3sources": "_bundled",
    "load_bundled": "_bundled",
    "load_digit": "_bundled",
    "load_digit_small": "_bundled",
    "load_reuter": "_bundled",
    "LABEL_KEYS": "_conventions",
    "VIEW_KEYS": "_conventions",
    "MultiViewDataset": "_dataset",
    "repeats_text": "_dataset",
    "DataLoadError": "_errors",
    "load": "_load",
    "inject": "_outliers",
    "preprocess": "_preprocess",
    "make_multiview_subspaces": "_synthetic",
}


__all__ = [
    "DIGIT_SMALL_PER_CLASS",
    "LABEL_KEYS",
    "SAMPLE_DATA",
    "VIEW_KEYS",
    "DataLoadError",
    "MultiViewDataset",
    "bundled_names",
    "inject",
    "load",
    "load_3sources",
    "load_bundled",
    "load_digit",
    "load_digit_small",
    "load_reuter",
    "make_multiview_subspaces",
    "preprocess",
    "repeats_text",
]

__getattr__, __dir__ = lazy_attributes(__name__, _WHERE, __all__)
