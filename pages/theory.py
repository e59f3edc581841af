"""Theory: the RMSC model, its three closed-form steps, and the weighting curves (Figure 2)."""

import streamlit as st

import ui
from rmsc import dashboard as dash
from rmsc import figures
from rmsc.rmsc import GAMMA
from rmsc.solver import TOL

ss = st.session_state

ui.page_setup()
st.title("Theory")
ui.intro(
    "RMSC (Fan, Liang, He, Hu & Lyu, IJCAI 2017) extends sparse subspace clustering to many "
    "views: every sample should be a sparse combination of the other samples of its class "
    "(its subspace), in every view. Each view v learns such a self-representation Zᵛ, a "
    "sparse consensus Z* fuses them, and a weight P_vj says how far the consensus should "
    "trust sample j in view v. The weights are not given: they come from the losses through "
    "a regulariser ψ. **Try:** move γ and watch the minimizer σ flatten — with large γ every "
    "sample gets nearly the same weight and RMSC behaves like an unweighted average."
)

st.subheader("The model")
# Two lines: the objective, then its constraints (on one line the "= 0" runs off a 1280-px
# screen).
st.latex(r"""
\begin{aligned}
\min_{\{Z^v\},\,Z^*,\,P}\ & \sum_{v=1}^{m}\sum_{j=1}^{n} \Big\{ P_{vj}\big(
\|x^v_j - X^v z^v_j\|_2^2 + \lambda\,\|z^v_j - z^*_j\|_2^2\big) + \psi(P_{vj}) \Big\}
+ \beta\,\|Z^*\|_1 \\
\text{s.t. }\ & P \ge 0,\ \operatorname{diag}(Z^v) = 0
\end{aligned}
""")
st.markdown(
    "- $X^v$ ($d_v \\times n$): view $v$, samples as columns; $z^v_j$: how sample $j$ is "
    "rebuilt from the others in view $v$ (never from itself: diag $= 0$).\n"
    "- $\\lambda$ pulls every view's representation towards the consensus $Z^*$; "
    "$\\beta$ makes $Z^*$ sparse (few, same-class neighbours).\n"
    "- $\\psi(p) = \\gamma p + 1/p - 2$ keeps the weights from collapsing to zero."
)

st.subheader("Three closed-form steps (Algorithm 1)")
st.markdown("Starting from $P = 1$, each step solves its block exactly, so the objective never "
            "increases (the curve on *Solve*).")
st.markdown("**Z\\*-step** — a weighted average of the views' representations, soft-thresholded "
            "(this is where sparsity and the weights enter):")
st.latex(r"""
Z^*_{ij} = \operatorname{sign}(a_{ij})\,
\frac{\max\!\big(2\lambda\,|a_{ij}| - \beta,\ 0\big)}{2\lambda \sum_v P_{vj}},
\qquad a_{ij} = \sum_{v} P_{vj} Z^v_{ij}
""")
st.markdown("**P-step** — each weight from its sample's loss in its view:")
st.latex(r"""
P_{vj} = \sigma(\ell_{vj}) = \frac{1}{\sqrt{\gamma + \ell_{vj}}},\qquad
\ell_{vj} = \|x^v_j - X^v z^v_j\|_2^2 + \lambda \|z^v_j - z^*_j\|_2^2
""")
st.markdown("**Zᵛ-step** — a ridge self-representation pulled towards $Z^*$, with the "
            "zero diagonal enforced by a Lagrange multiplier $y$:")
st.latex(r"""
Z^v = \big(X^{v\top} X^v + \lambda I\big)^{-1}
\big(X^{v\top} X^v + \lambda Z^* - \operatorname{diag}(y/2)\big)
""")
st.markdown("Finally spectral clustering on $S = (|Z^*| + |Z^{*\\top}|)/2$ "
            "(see *Affinity*).")

st.subheader("What the defaults change: each view in its own unit")
st.markdown(
    "The paper's losses are absolute, so one iteration's weights depend on each view's "
    "scale, and on Digit the clustering of Z* kept drifting for hundreds of iterations after "
    "the objective had settled. rmsc's defaults measure each view's losses in its own unit "
    "$s_v$, the median of its losses at the start, and give "
    "the view the factor $c_v = 1/s_v$:"
)
st.latex(r"""
\min\ \sum_{v} c_v \sum_{j} \Big\{ P_{vj}\,\ell_{vj} + s_v\,\psi(P_{vj}) \Big\}
+ \beta\,\|Z^*\|_1,
\qquad P_{vj} = \frac{1}{\sqrt{\gamma + \ell_{vj}/s_v}}
""")
st.markdown(
    "Every step is still exact, so the objective never increases; the Z\\*-step averages "
    "with the weights $c_v P_{vj}$, and γ is in the views' unit (default "
    f"{GAMMA:g}: a weight at most {1 / GAMMA ** 0.5:g} times a "
    "typical sample's). The iterations stop when $Z^*$ changes by less than "
    f"{TOL:g} of its size in one iteration. The paper's exact model is one "
    "setting away in Python (`loss_scale=None, gamma=1e-5`) and is what the reproduction "
    "fits; why the defaults changed, measured: docs/stability.md. The unit does not stop "
    "a view whose samples spread along few directions from drawing most of the weight (it "
    "reconstructs every sample almost exactly, relative to its own median too): the "
    "*Weights* page shows "
    "each view's share."
)

st.subheader("Why a view whose samples spread along few directions draws the weight")
st.markdown(
    "The weights reward being **easy to rebuild**, which is not the same as being "
    "informative. Take a view whose $n$ samples (scaled to unit length) lie close to $r$ "
    "directions, $n \\gg r$:\n"
    "1. **Few directions, many samples.** Any $r$ samples in general position span those "
    "directions, so every sample is nearly an exact combination of a handful of others — of "
    "any class. The reconstruction $\\|x^v_j - X^v z^v_j\\|^2$ can be made almost 0 whatever "
    "the view's cluster structure. What counts is $r$, not the number of features: on "
    "Digit, FAC has 216 features and the second-smallest median loss, its samples spread "
    "along about 5 directions; MOR's 6 features along 1 (the participation ratio of each "
    "view's spectrum; `python docs/studies/study_view_dimension.py`, docs/lesson.md, "
    "\"Few features or few directions?\"). The *Weights* page gives this reason, with the "
    "fit's numbers, when the view with most of the weight has the narrowest spread.\n"
    "2. **The losses vanish.** With $\\ell_{vj} \\approx 0$ the P-step gives "
    "$P_{vj} = 1/\\sqrt{\\gamma + \\ell_{vj}} \\approx 1/\\sqrt{\\gamma}$: the weights run "
    "to the cap, for clean and corrupted samples alike (measured in the view's own unit, "
    "the view's factor $c_v = 1/s_v$ grows instead, with the same effect).\n"
    "3. **The consensus follows that view.** The Z\\*-step averages the views with these "
    "weights, so $Z^*$ copies the representation of the view that is easiest to rebuild, "
    "even when its own clustering is the worst.\n\n"
    "A sample that is all zero in a view, or repeated exactly by another sample there, is "
    "the extreme case: nothing (or its twin) rebuilds it exactly, and the P-step alone would "
    "give it the view's highest weight although it carries no information. rmsc's defaults "
    "hold such a weight at the view's typical weight instead (the median of the view's "
    "weights at the start), a constant of the model, so every step stays exact; the "
    "paper's exact model (`uninformative=None`) does not. What to look for on *Weights*: "
    "whether the view "
    "with the largest share also clusters best on its own (its own ACC, or its graph's "
    "eigengap without labels)."
)

st.subheader("Why these weights are robust (the paper's Figure 2)")
st.markdown(
    "Minimising $p\\,\\ell + \\psi(p)$ over $p$ gives the **minimizer** $\\sigma(\\ell)$ and "
    "leaves the **latent loss** $\\varphi(\\ell) = 2(\\sqrt{\\gamma + \\ell} - 1)$: RMSC "
    "effectively pays $\\varphi$ instead of $\\ell$, which grows like a square root — a "
    "sample with a huge loss (an outlier) cannot dominate the fit. The paper's Figure 2 uses "
    "γ = 1."
)
gamma = st.select_slider("γ", dash.log_grid(1e-4, 100), value=1.0, key="w_theory_gamma",
                         format_func=lambda v: f"{v:g}")
loss_max = st.select_slider("loss axis up to", [1.0, 2.0, 4.0, 10.0, 30.0, 100.0], value=4.0,
                            key="w_theory_loss_max", format_func=lambda v: f"{v:g}")
st.plotly_chart(figures.latent_loss_figure(gamma, loss_max=loss_max), key="latent_loss")

out, _ = ui.fit_outcome(hurry=True)
if isinstance(out, dash.FitResult):
    data = ui.data()
    if out.params.weighting == "sample":
        st.markdown(
            f"**The current fit** ({out.params.method} on {out.dataset_name}, γ = "
            f"{out.params.gamma:g}): the P-step sets every weight to σ of its loss, so every "
            "(sample, view) pair lies on the curve. Pairs far right are reconstructed badly "
            "and trusted less; injected outliers (crosses) should sit there.")
    else:
        st.markdown(
            f"**The current fit** ({out.params.method} on {out.dataset_name}, γ = "
            f"{out.params.gamma:g}): with one weight per view, each view's weight is σ of its "
            "*total* loss over all samples, so every view is a single point on the curve.")
    with ui.stored_reads():  # a result from disk reads its P here: damaged, it says so
        losses = dash.weight_losses(out.weights, out.params.gamma)
        st.plotly_chart(figures.fitted_weights_figure(
            losses, out.weights, out.params.gamma, data.view_names,
            outlier_mask=data.outlier_mask), key="fitted_weights")
else:
    st.caption("Fit RMSC on the *Solve* page to see where its samples sit on σ.")
