"""Every figure of rmsc: pure functions, data in, plotly Figure out.

Nothing here imports streamlit or fits a model; the dashboard's pages and the
``rmsc reproduce`` command call these with numbers they already have. Large
matrices are pooled (:mod:`rmsc.pooling`) or rendered as images before they are
put in a figure, so no figure carries more than about 600 x 600 cells as JSON.

One private module per subject; every public name is re-exported here
(``rmsc.figures.pooled_weights_heatmap_figure`` etc.):

===============  ===================================================================
``_style``       class and method colors, legends of many classes, group ticks, log axes
``_data``        the Data page: samples per class, every view in 2-D, sample pictures
``_solve``       the Solve page: objective curve, the clustering along the iterations,
                 mean weight per view, the suggestion
``_weights``     the Weights page: P as a heatmap, its distribution, outlier ROC curves
``_affinity``    the Affinity page: affinities as images, every view's, the embedding
``_theory``      the Theory page: ψ, the latent loss and the minimizer; a fit on them
``_comparison``  methods side by side: scores as bars, robustness across injections
``_paper``       the paper's Figures 1, 3 and 4 as the reproduction draws them
===============  ===================================================================
"""

from ._style import (  # noqa: F401
    CLASS_COLORS,
    CLASS_SYMBOLS,
    MAX_BAR_LABELS,
    MAX_BOUNDARIES,
    MAX_GROUP_TICKS,
    MAX_LEGEND_ENTRIES,
    MAX_PANEL_TICKS,
    OUTLIER_COLOR,
    PLAIN_NUMBERS,
    THIN_BOUNDARIES,
    class_color,
    class_symbol,
    legend_groups,
    method_color,
    plain_numbers,
)
from ._data import (  # noqa: F401
    class_counts_figure,
    sample_images_figure,
    views_scatter_figure,
)
from ._solve import (  # noqa: F401
    clustering_trace_figure,
    objective_figure,
    suggestion_figure,
    view_weights_figure,
)
from ._weights import (  # noqa: F401
    DARK_RELATIVE,
    HEATMAP_BACKGROUND,
    HEATMAP_FRAME,
    LOW_END_COLORSCALE,
    MODEBAR_ROOM_PX,
    OUTLIER_MARK_SIZE,
    RELATIVE_ZMAX,
    SHARE_NAME,
    WEIGHT_ROW_GAP,
    column_runs,
    mark_groups,
    pooled_weights_heatmap_figure,
    roc_figure,
    sample_weights_figure,
    score_roc_figure,
    trust_quality_figure,
    view_shares_figure,
    weight_distribution_figure,
)
from ._affinity import (  # noqa: F401
    PANEL_SIDE,
    affinity_figure,
    embedding_figure,
    view_affinities_figure,
)
from ._theory import (  # noqa: F401
    fitted_weights_figure,
    latent_loss_figure,
)
from ._comparison import (  # noqa: F401
    comparison_figure,
    robustness_cases_figure,
    robustness_figure,
)
from ._paper import (  # noqa: F401
    accuracy_vs_views_figure,
    convergence_figure,
    sensitivity_figure,
)
