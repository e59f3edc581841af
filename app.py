"""RMSC explorer: the Streamlit dashboard (router and shared frame).

    make run        # or: streamlit run app.py

Every page lives in ``pages/`` and is registered with ``st.Page`` (see
``ui.pages``); the frame drawn here for every page (``ui.frame``) holds the
sidebar with the dataset, the parameters and the fit's status, keeps the URL
in step with the state, and starts the fit of the current data and
parameters in a background thread as soon as something changes.
"""

import streamlit as st

import ui

ui.log.debug("run start")
st.set_page_config(**ui.PAGE_CONFIG)
page = st.navigation(ui.pages())
ui.frame()
page.run()
ui.log.debug("run end %s", page.title)
