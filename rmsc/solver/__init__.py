"""The RMSC block coordinate descent (Fan et al., IJCAI 2017, Algorithm 1).

The paper's Section 4 in code, one small module per part, in the paper's order
(every public name is re-exported here, so ``rmsc.solver.solve`` etc.):

================  ===============================================================
``_weights``      psi, its latent loss and minimizer (Lemma 1, Figure 2); the P-step;
                  the scaled model's units (loss_scale, view_factors)
``_factors``      each view's Gram factor R (R^T R = X^T X) and its Woodbury quantities
``_zv_step``      the Z^v-step (eq. update_z_v), Z^v held implicitly; per-sample losses
``_zstar_step``   the Z*-step (eq. update_z_*): soft-thresholding, one column block at
                  a time, sparse or dense
``_kernel``       the same iteration on n x n hat matrices, for text views (r_v = n)
``_objective``    the objective's four terms (eq. proposed_model / rmsc_mv)
``_algorithm``    Algorithm 1 (:func:`solve`), :func:`beta_max`: one loop and one
                  prelude over three forms of the steps (factor, kernel, dense)
``_solution``     what a solve returns (:class:`RMSCSolution`), the default budget and
                  the stopping rules (:func:`converged`), shared by ``_algorithm`` and
                  ``_dense``
``_beta``         beta relative to the data: :func:`beta_scale`, the rule
                  :class:`RelativeBeta` a solve may be given instead of a number
``_linalg``       dense-factor times sparse-consensus products within a memory budget
``_dense``        the steps in dense n x n form on the arrays' own device (torch, CuPy,
                  array_api_strict; :class:`DenseForm`): what :func:`solve` runs for
                  factors that are not NumPy arrays (docs/device.md)
================  ===============================================================

Speed (``benchmarks/bench_solver.py --settings``, ``bench_fit.py``):
the Z*-step's products run in float32 while Z* is dense (:data:`PRECISION`);
a consensus denser than :data:`DENSE_ZSTAR_DENSITY` is held dense; views with
about as many factor rows as samples use the kernel form (:data:`KERNEL_ROWS`),
whose products H_v Z* are sparse when Z* is. The stopping rule is
:func:`converged` (:data:`TOL`, :data:`MAX_ITER`).
"""

from ._weights import (  # noqa: F401
    LOSS_SCALES,
    UNINFORMATIVE_RULES,
    VIEW_BALANCES,
    balance_shift,
    balance_targets,
    dof_scale,
    p_step_balanced,
    p_step_two_level,
    psi_centred,
    solver_weighting,
    view_level_weights,
    FixedWeights,
    fixed_weights,
    uninformative_samples,
    consensus_weights,
    latent_loss,
    loss_scale,
    loss_of_weight,
    initial_weights,
    minimizer,
    p_step,
    psi,
    regularizer,
    view_factors,
)
from ._factors import (  # noqa: F401
    ViewFactor,
    factorize_view,
    gram_factor,
    gram_factors,
)
from ._linalg import (  # noqa: F401
    BLOCK_BYTES,
    sparse_right_product,
)
from ._zv_step import (  # noqa: F401
    ViewRepresentation,
    consensus_gap,
    residual_operator,
    sample_losses,
    view_representation,
    zv_step,
)
from ._zstar_step import (  # noqa: F401
    CACHE_BLOCK_BYTES,
    ColumnBlock,
    DENSE_ZSTAR_BYTES,
    DENSE_ZSTAR_DENSITY,
    MIN_BLOCK_COLUMNS,
    StackedFactors,
    Thresholded,
    ZstarStep,
    assemble_blocks,
    block_columns,
    keep_dense,
    stack_factors,
    threshold_block,
    threshold_columns,
    threshold_rows,
    to_csc,
    weighted_Q,
    zstar_step,
)
from ._kernel import (  # noqa: F401
    KERNEL_BYTES,
    KERNEL_ROWS,
    KernelState,
    kernel_block,
    kernel_colmax,
    kernel_state,
    use_kernel_form,
)
from ._objective import (  # noqa: F401
    OBJECTIVE_TERMS,
    l1_norm,
    terms_from_losses,
)
from ._dense import (  # noqa: F401
    DENSE_COPIES,
    DenseForm,
    dense_form_bytes,
)
from ._beta import (  # noqa: F401
    RelativeBeta,
    beta_scale,
)
from ._solution import (  # noqa: F401
    MAX_ITER,
    RMSCSolution,
    STOPPING,
    STOPPINGS,
    STOPPING_TEXT,
    STOP_ON,
    TOL,
    converged,
    objective_change,
    stop_measure,
    zstar_change,
)
from ._acceleration import (  # noqa: F401
    ACCELERATION,
    ACCELERATIONS,
    check_acceleration,
)
from ._algorithm import (  # noqa: F401
    FactorForm,
    KernelForm,
    PRECISION,
    PRECISIONS,
    SolveOptions,
    beta_max,
    column_betas,
    solve,
)
