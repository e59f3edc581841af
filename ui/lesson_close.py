"""The lesson's closing answer on the step of its last test, from every test's run as the
result cache holds it (:func:`rmsc.dashboard.lesson_close.closing_answer`)."""

from __future__ import annotations

import streamlit as st

from rmsc import dashboard as dash
from rmsc.dashboard import lesson as lessons
from rmsc.dashboard import lesson_close

from .caches import result_cache
from .lesson import _step_data, _step_dataset


@st.cache_resource(max_entries=8, show_spinner=False)
def _answer(keys, steps, _runs, _claims):
    """The closing answer for the runs ``keys`` (each test's comparison, fit and clean fit):
    made once for every session."""
    facts = [lesson_close.run_facts(*run, claim) for run, claim in zip(_runs, _claims)]
    if None in facts:
        return None
    return lesson_close.closing_answer([dict(f, step=k) for f, k in zip(facts, steps)])


def answer(lesson, n):
    """The lesson's answer (Markdown) on step ``n`` when it is the step of the lesson's last
    test (:func:`rmsc.dashboard.lesson_close.closing_tests`), None on other steps or while
    a test's run is not in the result cache."""
    tests = lesson_close.closing_tests(lesson.steps)
    if not tests or n != tests[-1]:
        return None
    cache, keys, runs, claims = result_cache(), [], [], []
    for k in tests:
        step = lesson.step(k)
        clean, data = _step_data(lesson, step), _step_dataset(lesson.source, k, lesson)
        key = (lessons.step_comparison(step, clean, data)[0],
               dash.fit_key(step.params, data), dash.fit_key(step.params, clean))
        run = [cache.get(x) for x in key]
        if None in run:
            return None
        keys.append(key)
        runs.append((run[0], run[1], data, run[2]))
        claims.append(step.claim)
    return _answer(tuple(keys), tuple(tests), runs, claims)
