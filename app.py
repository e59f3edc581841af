"""RMSC explorer: the Streamlit dashboard (router and shared frame).

    make run        # or: streamlit run app.py

Every page lives in ``pages/`` and is registered here with ``st.Page``; the
sidebar (dataset, parameters, fit status) is drawn here for every page. The
fit of the current data and parameters runs in a background thread as soon as
something changes (see ``ui.ensure_fit``), so every page can show it.
"""

import streamlit as st

import ui

st.set_page_config(page_title="RMSC explorer", page_icon=":material/hub:", layout="wide")

ui.init_session()

PAGES = [
    st.Page("pages/data.py", title="Data", icon=":material/dataset:", default=True),
    st.Page("pages/solve.py", title="Solve", icon=":material/play_circle:"),
    st.Page("pages/weights.py", title="Weights", icon=":material/balance:"),
    st.Page("pages/affinity.py", title="Affinity", icon=":material/grid_on:"),
    st.Page("pages/compare.py", title="Compare", icon=":material/leaderboard:"),
    st.Page("pages/sensitivity.py", title="Sensitivity", icon=":material/tune:"),
    st.Page("pages/theory.py", title="Theory", icon=":material/school:"),
]

page = st.navigation(PAGES)
ui.ensure_fit()
ui.sidebar()
ui.show_messages()
page.run()
ui.sync_query_params()
