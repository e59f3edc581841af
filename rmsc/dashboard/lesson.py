"""A guided lesson: steps that each set the whole state (data, injection, parameters, display).

A lesson is data, one YAML file (``sample_data/lesson.yaml`` ships the paper's argument on
Digit; docs/lesson.md says how to write one). Every step names its dataset, the outliers to
inject (or none), RMSC's parameters (:class:`~rmsc.dashboard.params.Params`' fields), what
the Lesson page shows (:data:`SHOWS`), the dashboard page to explore further, two or three
sentences and one question. :func:`parse_lesson` checks every field against the parameter
contract (``Params`` and ``OutlierSpec``, which check ``rmsc.RMSC._parameter_constraints``)
and names the step and the field of anything wrong (:class:`LessonError`).

A step's state is also a URL (:func:`step_query`, :func:`state_from_query`, the dashboard's
own query-string round trip), opened on a laptop from its QR code (:func:`qr_svg`, drawn
here). :func:`warm_work` lists what the steps compute (RMSC fits, the paper's model among
them, comparisons) under the pages' keys; :func:`warm` computes it (``rmsc lesson --warm``).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

import pandas as pd

from .. import datasets
from .. import methods as registry
from .. import outliers as outlier_module
from .._resources import sample_data_dir
from .fitting import fit_rmsc, run_view_quality, view_quality_key
from .jobs import DONE, Job
from .kept import open_result_cache
from .params import AUTO, OutlierSpec, Params, fit_key
from .remote import Remote, RemoteParts
from .lesson_text import (  # noqa: F401 - re-exported: what the page says about its numbers
    CLAIM_ASKS_MORE, FOLLOWS_GAP, SIZE_WORDS, NARROW, POSTPROCESSING_NOTE, ROC_NOTE,
    SCORES_NOTE, SHARE_COLUMNS, TIME_NOTE, SPREAD_LIMIT, SPREAD_MEANING, SPREAD_NOTE,
    SPREAD_RULE, acc_spreads, beyond_words, change_sentences, change_spread,
    changes_within_spread, gap_words, claim_facts, claim_sentence, comparison_sentences,
    echo_note, gain_sentence, gainers, heatmap_note, method_lines, postprocessing_difference,
    weight_note, within_spread, worst_words, gain_reminder, shares_heading, slider_sentence)
from .lesson_summary import (  # noqa: F401 - re-exported: the closing step's sentences
    AP_FOUND, AUC_FOUND, AUC_MISSED, LITTLE_SHARE, PER_VIEW, corrupted_share, detection_kind,
    earlier_comparison, per_view_sentence, postprocessing_line, postprocessing_reminder,
    later_test, run_context, step_takeaway, takeaway_sentences, carry_caveat)
from .lesson_views import neighbour_line, projection_note  # noqa: F401 - re-exported
from .lesson_paper import (  # noqa: F401 - re-exported: the paper's model, step 8's lines
    claim_evidence, clean_params, errors_sentence, nmi_claim, nmi_sentence, paper_params,
    split_acc, verdict_pair)
from .runs import compare_fits, compare_params, compare_tables, fit_parts
from .words import SYMBOLS

#: What the Lesson page can show for a step.
SHOWS = {
    "views": "each view of the data in 2-D and the samples as pictures",
    "compare": "ACC and NMI of the step's methods, on the clean data and with the outliers",
    "weights": "RMSC's weights P as a heatmap, and how well low weights find the outliers (ROC)",
    "solve": "RMSC's result at the step's parameters: ACC, density of Z*, each view's share of P",
    "summary": "what the run shows, in sentences computed from its numbers: the weights' "
               "AUCs, each method's change with the outliers, the corrupted views' share of "
               "Z*, and the claim's verdict",
}

#: The dashboard's pages a step may send the class to ("explore this on ...").
PAGES = ("Data", "Solve", "Weights", "Affinity", "Compare", "Sensitivity", "Theory")

#: Parameters a step's slider may move (Params fields with a log-scale grid).
SLIDER_PARAMS = ("lam", "beta_rel", "beta")

#: The fields of a step in a lesson file (everything else is an error).
STEP_FIELDS = ("title", "text", "question", "where", "show", "data", "outliers", "params",
               "methods", "claim", "page", "slider")
OUTLIER_FIELDS = tuple(f.name for f in dataclasses.fields(OutlierSpec))
PARAM_FIELDS = tuple(f.name for f in dataclasses.fields(Params))

QUERY_KEY = "lesson"  # the query-string key of the step number (?lesson=1: the first)


class LessonError(ValueError):
    """A lesson file that cannot be used: the message names the file, the step and the field."""


@dataclass(frozen=True)
class Slider:
    """A guided slider: one parameter and the values the class moves it through."""

    param: str
    values: tuple


@dataclass(frozen=True)
class Step:
    """One step of a lesson: the whole state it sets, what it shows, what it says and asks."""

    title: str
    text: str
    question: str
    show: str
    data: str = "Digit"
    outliers: OutlierSpec | None = None
    params: Params = field(default_factory=Params)
    methods: tuple = ()
    #: The method whose claim (the paper's: it loses the least to the outliers) a 'compare'
    #: step checks on its tables (:func:`claim_sentence`); None: the step checks none.
    claim: str | None = None
    page: str | None = None
    slider: Slider | None = None
    #: Where on the page the question's answer is (shown under the question, "↓ ..."):
    #: the evidence is often below the first screen. None: nothing said.
    where: str | None = None


@dataclass(frozen=True)
class Lesson:
    """A lesson: its title, its steps, and the file it came from (for messages)."""

    title: str
    steps: tuple
    source: str = "<lesson>"
    #: Folder that relative dataset paths of the lesson are read from.
    folder: str | None = None

    def __len__(self):
        return len(self.steps)

    def step(self, number):
        """Step ``number`` (1-based), clipped into the lesson."""
        return self.steps[clip_step(number, len(self.steps)) - 1]


def clip_step(number, n_steps):
    """``number`` as a step number of a lesson of ``n_steps`` steps (1 … n_steps)."""
    try:
        number = int(number)
    except (TypeError, ValueError):
        number = 1
    return min(max(number, 1), n_steps)


def default_lesson_path():
    """The lesson that ships with rmsc: the paper's argument on Digit."""
    return sample_data_dir() / "lesson.yaml"


def load_lesson(path=None, bundled=None):
    """Read and check a lesson file (YAML); :class:`LessonError` says what is wrong and where.

    ``bundled``: the dataset names a step may use besides files (default: rmsc's bundled
    datasets).
    """
    import yaml  # a dependency of dask; imported only where a lesson is read

    path = Path(path) if path is not None else default_lesson_path()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise LessonError(f"Cannot read the lesson file {path}: {exc.strerror or exc}.") from None
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise LessonError(f"{path} is not valid YAML: {' '.join(str(exc).split())}") from None
    return parse_lesson(doc, source=str(path), folder=str(path.parent), bundled=bundled)


def _bundled_names():
    return list(datasets.bundled_names())


def parse_lesson(doc, source="<lesson>", folder=None, bundled=None):
    """A :class:`Lesson` from a parsed lesson file (a mapping with ``title`` and ``steps``).

    Every field is checked; the first problem raises :class:`LessonError` naming the step
    (number and title) and the field.
    """
    if not isinstance(doc, dict):
        raise LessonError(f"{source}: a lesson is a mapping with 'title' and 'steps'; got "
                          f"{type(doc).__name__}.")
    unknown = sorted(set(doc) - {"title", "steps"})
    if unknown:
        raise LessonError(f"{source}: unknown top-level field(s) {', '.join(unknown)}; a lesson "
                          "has 'title' and 'steps'.")
    title = doc.get("title")
    if not isinstance(title, str) or not title.strip():
        raise LessonError(f"{source}: field 'title' must be a non-empty text.")
    steps = doc.get("steps")
    if not isinstance(steps, list) or not steps:
        raise LessonError(f"{source}: field 'steps' must be a non-empty list of steps.")
    names = _bundled_names() if bundled is None else list(bundled)
    out = tuple(_parse_step(raw, i, source, folder, names) for i, raw in enumerate(steps, 1))
    return Lesson(title=title.strip(), steps=out, source=source, folder=folder)


def _parse_step(raw, number, source, folder, bundled):
    where = f"{source}: step {number}"
    if isinstance(raw, dict) and isinstance(raw.get("title"), str):
        where += f" ({raw['title'].strip()!r})"

    def fail(name, message):
        raise LessonError(f"{where}, field '{name}': {message}")

    if not isinstance(raw, dict):
        raise LessonError(f"{where}: a step is a mapping of fields ({', '.join(STEP_FIELDS)}); "
                          f"got {type(raw).__name__}.")
    for name in raw:
        if name not in STEP_FIELDS:
            fail(name, f"unknown field; a step has {', '.join(STEP_FIELDS)}.")
    texts = {}
    for name in ("title", "text", "question"):
        value = raw.get(name)
        if not isinstance(value, str) or not value.strip():
            fail(name, "required, a non-empty text.")
        texts[name] = " ".join(value.split())
    cue = raw.get("where")
    if cue is not None:
        if not isinstance(cue, str) or not cue.strip():
            fail("where", "a non-empty text: where on the page the answer is.")
        cue = " ".join(cue.split())
    show = raw.get("show")
    if show not in SHOWS:
        fail("show", f"{show!r} is not one of {', '.join(SHOWS)}.")
    data = raw.get("data", "Digit")
    if not isinstance(data, str) or not data.strip():
        fail("data", "a bundled dataset's name or a file path.")
    if data not in bundled:
        path = Path(data) if folder is None else Path(folder) / data
        if not path.is_file():
            fail("data", f"{data!r} is neither a bundled dataset ({', '.join(bundled)}) nor a "
                         f"file{'' if folder is None else ' beside the lesson'}.")
    outliers = raw.get("outliers")
    if outliers is not None:
        outliers = _parse_outliers(outliers, fail)
    params = _parse_params(raw.get("params") or {}, fail)
    methods = raw.get("methods") or ()
    if isinstance(methods, str) or not isinstance(methods, (list, tuple)):
        fail("methods", "a list of method names, e.g. [SSC-AVG, RMSC].")
    known = registry.available_methods()
    for m in methods:
        if m not in known:
            fail("methods", f"{m!r} is not a method; choose from {', '.join(known)}.")
    if show in ("compare", "summary") and not methods:
        fail("methods", f"a '{show}' step needs at least one method.")
    if show == "summary" and outliers is None:
        fail("outliers", "a 'summary' step sums up a run with outliers; give the step's "
                         "outliers (those of the steps it sums up).")
    claim = raw.get("claim")
    if show == "summary" and claim is None:
        fail("claim", "a 'summary' step needs the method whose claim it sums up, e.g. RMSC.")
    if claim is not None:
        if show not in ("compare", "summary") or outliers is None:
            fail("claim", "checks a method's claim on a 'compare' or 'summary' step with "
                          "outliers; this step has none to check it on.")
        if claim not in methods:
            fail("claim", f"{claim!r} is not one of the step's methods "
                          f"({', '.join(map(str, methods))}).")
    page = raw.get("page")
    if page is not None and page not in PAGES:
        fail("page", f"{page!r} is not a page; choose from {', '.join(PAGES)}.")
    slider = raw.get("slider")
    if slider is not None:
        slider = _parse_slider(slider, params, fail)
    return Step(title=texts["title"], text=texts["text"], question=texts["question"], show=show,
                data=data, outliers=outliers, params=params, methods=tuple(methods), claim=claim,
                page=page, slider=slider, where=cue)


def _parse_outliers(raw, fail):
    if not isinstance(raw, dict):
        fail("outliers", "a mapping, e.g. {views: [PIX, FOU], fraction: 0.1, kind: replace}.")
    for name in raw:
        if name not in OUTLIER_FIELDS:
            fail(f"outliers.{name}", f"unknown; outliers have {', '.join(OUTLIER_FIELDS)}.")
    if "views" not in raw:
        fail("outliers.views", "required: the views to corrupt, e.g. [PIX, FOU].")
    views = raw["views"]
    if isinstance(views, str) or not isinstance(views, (list, tuple)):
        fail("outliers.views", "a list of view names, e.g. [PIX, FOU].")
    kind = raw.get("kind", "replace")
    if kind not in outlier_module.KINDS:
        fail("outliers.kind", f"{kind!r} is not one of {', '.join(outlier_module.KINDS)}.")
    for name in raw:
        try:
            OutlierSpec(**{"views": views, name: raw[name]})
        except (TypeError, ValueError) as exc:
            fail(f"outliers.{name}", str(exc))
    return OutlierSpec(**{**raw, "views": tuple(views)})


def _parse_params(raw, fail):
    if not isinstance(raw, dict):
        fail("params", "a mapping of RMSC's parameters, e.g. {lam: 1, beta_rel: 0.25}.")
    for name, value in raw.items():
        if name not in PARAM_FIELDS:
            fail(f"params.{name}", f"unknown parameter; choose from {', '.join(PARAM_FIELDS)}.")
        try:
            Params(**{name: value})
        except (TypeError, ValueError) as exc:
            fail(f"params.{name}", str(exc))
    try:
        params = Params(**raw)
    except (TypeError, ValueError) as exc:
        fail("params", str(exc))
    if raw.get("beta_rel") is not None and params.beta != AUTO:
        fail("params.beta_rel", "β_rel applies to beta: auto only; remove it or set beta: auto.")
    return params


def _parse_slider(raw, params, fail):
    if not isinstance(raw, dict) or set(raw) != {"param", "values"}:
        fail("slider", "a mapping {param: NAME, values: [...]}, e.g. {param: beta_rel, "
                       "values: [0.05, 0.25, 1]}.")
    name, values = raw["param"], raw["values"]
    if name not in SLIDER_PARAMS:
        fail("slider.param", f"{name!r} cannot be a slider; choose from "
                             f"{', '.join(SLIDER_PARAMS)}.")
    if isinstance(values, str) or not isinstance(values, (list, tuple)) or len(values) < 2:
        fail("slider.values", "a list of at least two values.")
    out = []
    for v in values:
        try:
            p = params.replace(**{name: v})
        except (TypeError, ValueError) as exc:
            fail("slider.values", f"{v!r}: {exc}")
        if name == "beta_rel" and p.beta != AUTO:
            fail("slider.param", "a beta_rel slider needs beta: auto in the step's params.")
        out.append(float(v))
    if sorted(set(out)) != out:
        fail("slider.values", "list distinct values in increasing order.")
    current = getattr(params, name) if name != "beta_rel" else params.resolved_beta_rel
    if name == "lam":
        current = params.resolved_lam
    if not any(abs(current - v) <= 1e-12 * abs(v) for v in out):
        fail("slider.values", f"must contain the step's own value {current:g} (where the "
                              "slider starts).")
    return Slider(param=name, values=tuple(out))


# -- the state a step sets, and its URL ---------------------------------------------------


def step_query(lesson, number):
    """Step ``number``'s state as query-string parameters (str -> str): the step number, the
    dataset, the outliers and the parameters, as the dashboard's own URL writes them."""
    step = lesson.step(number)
    query = {QUERY_KEY: str(clip_step(number, len(lesson))), "data": step.data}
    if step.outliers is not None:
        query.update(step.outliers.to_query())
    query.update(step.params.to_query())
    return query


def step_url(base, lesson, number):
    """The address that opens step ``number`` (``base``: the dashboard's root URL)."""
    return base.rstrip("/") + "/?" + urlencode(step_query(lesson, number))


def state_from_query(query):
    """(step number or None, data name or None, OutlierSpec or None, Params, problems) from
    a query string, by the dashboard's own parsers: what a step's URL opens."""
    params, problems = Params.from_query(query)
    outliers = None
    if "outliers" in query:
        try:
            outliers = OutlierSpec.from_query(query["outliers"])
        except ValueError as exc:
            problems.append(f"Ignored outliers={query['outliers']!r} from the URL: {exc}")
    number = query.get(QUERY_KEY)
    try:
        number = None if number is None else int(number)
    except ValueError:
        problems.append(f"Ignored {QUERY_KEY}={number!r} from the URL: not a step number.")
        number = None
    return number, query.get("data"), outliers, params, problems


# -- QR code ------------------------------------------------------------------------------


def qr_svg(text, scale=4):
    """``text`` (a URL) as a QR code, an SVG document drawn here (segno; no outside service)."""
    import segno  # imported where a QR code is drawn: the library needs it nowhere else

    return segno.make(text, error="m").svg_inline(scale=scale, border=2, dark="#000",
                                                   light="#fff")


# -- what a step computes -----------------------------------------------------------------


def compare_key(variants, methods, params, seed):
    """The cache key of a comparison, as the Compare page forms it (the same run shares it)."""
    return ("compare", tuple(d.fingerprint for d in variants.values()), tuple(variants),
            tuple(methods), json.dumps(params, sort_keys=True, default=str), int(seed))


def step_variants(step, clean, data):
    """The datasets a comparison step runs on: clean, and with the outliers when it has any."""
    if step.outliers is None:
        return {"clean": clean}
    return {"clean": clean, "with outliers": data}


def step_comparison(step, clean, data):
    """(key, variants, methods, params) of a 'compare' step (and of a 'summary' step: the
    comparison it sums up, the same run as a 'compare' step with the same state), None for
    other steps."""
    if step.show not in ("compare", "summary"):
        return None
    variants = step_variants(step, clean, data)
    cparams = compare_params(step.params, data, list(step.methods)) or None
    return compare_key(variants, step.methods, cparams, step.params.seed), variants, \
        list(step.methods), cparams


def slider_params(step):
    """The Params of a slider step at each value of its slider, in the slider's order."""
    return [step.params.replace(**{step.slider.param: v}) for v in step.slider.values]


def step_params(step):
    """Every Params a step fits RMSC with: its own, and each value of its slider."""
    out = [step.params]
    if step.slider is not None:
        out += slider_params(step)
    seen, unique = set(), []
    for p in out:
        if p not in seen:
            seen.add(p)
            unique.append(p)
    return unique


def load_step_data(lesson, step, load_bundled=None):
    """(clean, data) of a step: its dataset, and that dataset with the step's outliers."""
    if step.data in _bundled_names():
        clean = (load_bundled or datasets.load_bundled)(step.data)
    else:
        path = Path(step.data) if lesson.folder is None else Path(lesson.folder) / step.data
        clean = datasets.load(str(path))
    data = clean if step.outliers is None else step.outliers.inject(clean)
    return clean, data


def dashboard_cache():
    """The dashboard's result cache as another process (``rmsc lesson --warm``) opens it:
    over the same folder on disk (:func:`rmsc.dashboard.kept.open_result_cache`), so that
    what is computed here is what the server reads (in this process only when the
    server's disk layer is off, ``RMSC_CACHE_DIR=off``)."""
    return open_result_cache(64, 1 << 30)


def warm_work(lesson, cache):
    """What warming ``lesson`` computes that ``cache`` lacks, each distinct result once:
    ``(fits, comparisons)``, lists of ``(step number, key, ...)``: an RMSC fit's
    ``(number, key, data, params)``, a comparison's ``(number, key, variants, methods,
    params, seed)`` (two steps showing the same run share its key)."""
    fits, comparisons, seen, loaded = [], [], set(), {}
    for number, step in enumerate(lesson.steps, 1):
        if step.data not in loaded:
            loaded[step.data] = load_step_data(lesson, step)[0]
        clean = loaded[step.data]
        data = clean if step.outliers is None else step.outliers.inject(clean)
        for on, params in [(data, p) for p in step_params(step)] + [
                (clean, p) for p in clean_params(step)]:  # the paper's model (lesson_paper)
            key = fit_key(params, on)
            if key not in cache and key not in seen:
                seen.add(key)
                fits.append((number, key, on, params))
        comparison = step_comparison(step, clean, data)
        if comparison is not None and comparison[0] not in cache and comparison[0] not in seen:
            key, variants, methods, cparams = comparison
            seen.add(key)
            comparisons.append((number, key, variants, methods, cparams, step.params.seed))
    return fits, comparisons


def _fit_id(dataset, fit, seed):
    """What makes two fits of the comparisons the same fit: the data, method, parameters, seed."""
    return (dataset.fingerprint, fit.method, json.dumps(fit.params, sort_keys=True, default=str),
            int(seed))


def comparisons_task(comparisons):
    """Every comparison of :func:`warm_work` as one task for the workers
    (:class:`~rmsc.dashboard.remote.RemoteParts`): each distinct fit among them once (a
    method on the clean data in two steps' comparisons is fitted once), in groups that share
    a solve (:func:`rmsc.dashboard.runs.fit_parts`); its result is ``{key: tables}``, each
    comparison's tables as the Compare page's run gives them."""
    unique = {}  # fit id -> (Fit on the dataset's fingerprint, dataset, seed, its message)
    for _, _, variants, methods, cparams, seed in comparisons:
        for fit in compare_fits(variants, methods, cparams):
            d = variants[fit.data]
            unique.setdefault(_fit_id(d, fit, seed), (dataclasses.replace(
                fit, data=d.fingerprint), d, int(seed), f"{fit.data} — {fit.method}"))
    ids, parts = [], []
    for seed in sorted({u[2] for u in unique.values()}):
        mine = [(i, u) for i, u in unique.items() if u[2] == seed]
        fits = [u[0] for _, u in mine]
        seed_parts, groups = fit_parts({u[0].data: u[1] for _, u in mine}, fits,
                                       [u[3] for _, u in mine], seed)
        parts += seed_parts
        ids += [[mine[i][0] for i in group] for group in groups]

    def combine(results):
        records = {i: rec for group, recs in zip(ids, results) for i, rec in zip(group, recs)}
        out = {}
        for _, key, variants, methods, cparams, seed in comparisons:
            fits = compare_fits(variants, methods, cparams)
            out[key] = compare_tables(
                variants, fits, [records[_fit_id(variants[f.data], f, seed)] for f in fits])
        return out

    return RemoteParts(parts, combine)


def warm(lesson, cache, progress=None, sender=None):
    """Compute every step's fits and comparisons (a 'solve' step's views clustered alone too)
    into ``cache`` (a ResultCache), under the
    keys the pages look up; what is there already is skipped, and a result two steps share
    (a fit, a comparison, a method's fit in two comparisons) is computed once.

    ``sender``: where the work runs (:class:`rmsc.dashboard.DaskSender`: every fit and
    every part of the comparisons at once, on the Dask workers); None runs it in this
    process, one piece after another. ``progress(message)`` is told each result started.
    Returns the number of results computed; a piece that fails raises ValueError with its
    message.
    """
    say = progress or (lambda message: None)
    fits, comparisons = warm_work(lesson, cache)
    jobs = []
    for number, key, data, params in fits:
        say(f"step {number}: RMSC fit, {params.summary()[0]}")
        task = (Remote(fit_rmsc, data, params) if sender is not None
                else lambda job, data=data, params=params: fit_rmsc(data, params, job))
        jobs.append(Job(key, task, label=f"step {number}: RMSC fit", sender=sender))
    for number, key, variants, methods, cparams, seed in comparisons:
        say(f"step {number}: {', '.join(methods)} on {' and '.join(variants)}")
    if comparisons:
        jobs.append(Job(("lesson-comparisons", *(c[1] for c in comparisons)),
                        comparisons_task(comparisons), label="the comparisons", sender=sender))
    qualities = {view_quality_key(s.params, d): (k, d, s.params) for k, s, d in (
        (k, s, load_step_data(lesson, s)[1]) for k, s in enumerate(lesson.steps, 1)
        if s.show == "solve")}  # step 6's "each view alone" (lesson_text.echo_note)
    qualities = {key: q for key, q in qualities.items() if key not in cache}
    for key, (number, data, params) in qualities.items():
        say(f"step {number}: each view clustered alone")
        jobs.append(Job(key, Remote(run_view_quality, data, params) if sender is not None else
                        (lambda job, d=data, p=params: run_view_quality(d, p, job)),
                        label=f"step {number}: each view alone", sender=sender))
    for job in jobs:  # on workers all at once; here one after another
        job.start()
        if sender is None:
            job.wait()
    for job in jobs:
        job.wait()
        if job.state != DONE:
            raise ValueError(f"{job.label}: {job.error or 'cancelled'}")
        if isinstance(job.result, dict):  # the comparisons' tables, by key
            for key, tables in job.result.items():
                cache.put(key, tables)
        elif isinstance(job.result, list):  # each view alone
            cache.put(job.key, job.result)
        else:
            cache.put(job.result.key, job.result)
    return len(fits) + len(comparisons) + len(qualities)


def consensus_density(result):
    """The share of Z*'s off-diagonal entries that are nonzero, in % (a fit's sparsity)."""
    n = result.consensus.shape[0]
    return 100.0 * result.consensus.nnz / max(n * (n - 1), 1)


def slider_table(step, results):
    """A slider step's fits side by side, one row per value of its slider: the value, the
    absolute β, ACC % and the density of Z* % (:func:`consensus_density`), so that one
    screen shows what moving the slider changes. ``results``: each value's fit
    (:func:`step_params` with the slider at that value, as the result cache holds it), None
    while it is not in (its cells empty), or a failure (no ``consensus``: empty too)."""
    name = SYMBOLS.get(step.slider.param, step.slider.param)
    rows = []
    for value, r in zip(step.slider.values, results):
        done = r is not None and getattr(r, "consensus", None) is not None
        scores = getattr(r, "scores", None) if done else None
        rows.append({name: value,
                     "β (absolute)": r.beta if done and r.beta is not None else float("nan"),
                     "ACC %": 100 * scores["acc_mean"] if scores else float("nan"),
                     "density of Z* %": consensus_density(r) if done else float("nan")})
    return pd.DataFrame(rows)


def slider_table_text(table):
    """:func:`slider_table` as the page draws it, in text: the slider's values as given, β to
    3 significant digits, ACC to 0.1, the density to 0.01, and "—" for a value not fitted yet
    (a number column's missing value would read "None")."""
    table = table.copy()
    for col, fmt in ((table.columns[0], "{:g}"), ("β (absolute)", "{:.3g}"), ("ACC %", "{:.1f}"),
                     ("density of Z* %", "{:.2f}")):
        table[col] = ["—" if v != v else fmt.format(v) for v in table[col]]
    return table
