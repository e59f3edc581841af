"""Every figure of rmsc: pure functions, data in, plotly Figure out.

Nothing here imports streamlit or fits a model; the dashboard's pages and the
``rmsc reproduce`` command call these with numbers they already have. Large
matrices are pooled or rendered as images before they are put in a figure, so
no figure carries more than about 600 x 600 cells as JSON.
"""

from __future__ import annotations


# ---------------------------------------------------------------------------
# Dashboard figures (data, solver, weights, affinity, comparison, theory)
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# Reproduction figures (the paper's Figures 1, 3 and 4)
# ---------------------------------------------------------------------------
