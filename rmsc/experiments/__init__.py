"""The paper's experiments: the protocol, tables on demand, and the whole reproduction.

==================  ===============================================================
``protocol``        :func:`run_one`, :func:`evaluate_setting`: fit a method and score it
                    by the paper's protocol (the only place that does)
``tables``          :func:`compare`, :func:`accuracy_vs_views`, :func:`sensitivity_grid`:
                    one dataset, a DataFrame each (the dashboard's Compare/Sensitivity);
                    their plans and rows, for the same tables from fits run elsewhere
``paper``           Table 1 as published, the paper's datasets and view names
``grid``            every method's search grid, the equal budget, :func:`thin`,
                    affinity post-processing variants
``cache``           :class:`Record`, :class:`Cache`: finished fits in a JSON file (resume)
``search``          :func:`search` every setting of every method on a dataset; :func:`best`
``shared``          :class:`SharedSolves`: an inner problem solved once per run
``parallel``        fits in groups that share a solve (:func:`plan_groups`, longest
                    first; :func:`run_group`), on Dask workers (:func:`run_fits`)
``reproduce``       :func:`run`: the whole reproduction (``rmsc reproduce``)
``report``          the results document (Markdown tables)
``report_figures``  the reproduction's figures and their files
``results_json``    the reproduction as JSON
==================  ===============================================================

Imports go one way: protocol → cache; tables → protocol, grid; search → protocol,
grid; parallel → protocol, cache, shared; reproduce → search, tables, shared, parallel;
report → grid, paper, cache. The public
names of every module are re-exported here.
"""

from .cache import Cache, Record
from .grid import (
    DATASET_BUDGET,
    POSTPROCESSING,
    POSTPROCESSING_TITLE,
    SEARCH,
    SEARCH_BUDGET,
    SEARCH_NOTES,
    SELF_REPRESENTATION,
    applies_postprocessing,
    check_budgets,
    check_methods,
    registry_default_index,
    search_grid,
    settings,
    thin,
)
from .paper import (
    CONVERGENCE_DATASETS,
    DATASETS,
    INPUT_WEIGHTINGS,
    PAPER_TABLE1,
    SENSITIVITY_BETAS,
    SENSITIVITY_DATASETS,
    SENSITIVITY_LAMS,
    VIEWS_DATASETS,
    VIEWS_METHODS,
    paper_dataset,
)
from .protocol import (FIT_FAILURES, at_library_defaults, at_own_defaults, evaluate_setting,
                       run_one)
from .report import (
    NOLABEL_SUFFIX,
    goal_table,
    report,
    search_table,
    sensitivity,
    sensitivity_grid_markdown,
    sensitivity_markdown,
    short_error,
    table1,
    table1_for,
    timing_markdown,
    views_markdown,
)
from .report_figures import comparison_frame, figures_of, save_figure
from .reproduce import (
    DatasetRun,
    Reproduction,
    load_for_reproduction,
    resolve_datasets,
    run,
    text_progress,
)
from .results_json import to_json
from .parallel import Fit, fit_cost, plan_groups, run_fits, run_group, share_key
from .search import RUN_ORDER, best, count_jobs, search, search_plan
from .shared import SharedSolves
from .tables import (
    COMPARE_COLUMNS,
    SCORE_COLUMNS,
    SENSITIVITY_COLUMNS,
    VIEWS_COLUMNS,
    accuracy_vs_views,
    compare,
    compare_frame,
    compare_plan,
    compare_row,
    sensitivity_frame,
    sensitivity_grid,
    sensitivity_plan,
    sensitivity_row,
    views_frame,
    views_plan,
    views_row,
)

__all__ = [
    "run_group",
    "plan_groups",
    "fit_cost",
    "views_row",
    "views_frame",
    "sensitivity_row",
    "sensitivity_frame",
    "compare_row",
    "compare_plan",
    "compare_frame",
    "COMPARE_COLUMNS",
    "CONVERGENCE_DATASETS",
    "Cache",
    "DATASETS",
    "DATASET_BUDGET",
    "DatasetRun",
    "FIT_FAILURES",
    "Fit",
    "NOLABEL_SUFFIX",
    "PAPER_TABLE1",
    "POSTPROCESSING",
    "POSTPROCESSING_TITLE",
    "RUN_ORDER",
    "Record",
    "Reproduction",
    "SCORE_COLUMNS",
    "SEARCH",
    "SEARCH_BUDGET",
    "SEARCH_NOTES",
    "SELF_REPRESENTATION",
    "SENSITIVITY_BETAS",
    "SENSITIVITY_COLUMNS",
    "SENSITIVITY_DATASETS",
    "SENSITIVITY_LAMS",
    "SharedSolves",
    "VIEWS_COLUMNS",
    "VIEWS_DATASETS",
    "VIEWS_METHODS",
    "accuracy_vs_views",
    "applies_postprocessing",
    "best",
    "check_budgets",
    "check_methods",
    "compare",
    "comparison_frame",
    "count_jobs",
    "at_library_defaults",
    "at_own_defaults",
    "evaluate_setting",
    "figures_of",
    "goal_table",
    "load_for_reproduction",
    "INPUT_WEIGHTINGS",
    "paper_dataset",
    "report",
    "resolve_datasets",
    "run",
    "run_fits",
    "run_one",
    "save_figure",
    "search",
    "search_grid",
    "search_plan",
    "search_table",
    "sensitivity",
    "sensitivity_grid",
    "sensitivity_grid_markdown",
    "sensitivity_markdown",
    "sensitivity_plan",
    "settings",
    "share_key",
    "short_error",
    "table1",
    "table1_for",
    "text_progress",
    "thin",
    "registry_default_index",
    "timing_markdown",
    "to_json",
    "views_markdown",
    "views_plan",
]
