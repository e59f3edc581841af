"""A page with text cut off on purpose, beside the same elements shown whole.

``tests/browser/test_clipping.py`` serves it and checks that ``tests/clipped_text.js`` finds every
planted cut (the markers "PLANT ...", "plant ..." and the count 111) and nothing else (the
markers "whole ...", and the count 222).
"""

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

st.set_page_config(page_title="planted clips", layout="wide")
st.title("Planted clips")

narrow, wide = st.columns([1, 4])
with narrow:
    # a select's value wider than its field; chips that do not fit their box
    st.selectbox("select", ["PLANT select: a value far too long for this narrow field"])
    st.multiselect("chips", [f"PLANT chip {k}" for k in range(8)],
                   default=[f"PLANT chip {k}" for k in range(8)])
    # a table wider than its column (hidden behind a scroll bar)
    st.dataframe(pd.DataFrame({f"plantwide {k}": [1.0, 2.0] for k in range(8)}),
                 hide_index=True, key="plant_wide")
with wide:
    st.selectbox("select whole", ["whole select"])
    st.multiselect("chips whole", ["whole chip"], default=["whole chip"])
    st.dataframe(pd.DataFrame({"whole a": [1.0, 2.0], "whole b": ["x", "y"]}), hide_index=True,
                 key="whole_table", height="content")

# an equation wider than the page (its end behind a scroll bar)
st.latex(r"\text{PLANT}" + " + ".join(f"x_{{{k}}}" for k in range(150)) + r" = 0")
st.latex(r"\text{whole } a + b = c")

# a cell wider than its column; a short table that scrolls inside itself
st.dataframe(pd.DataFrame({"plantcell": ["PLANT cell: a sentence much wider than this column "
                                          "can show at all"], "room x": ["x"], "room y": ["y"]}),
             hide_index=True, key="plant_cell",
             column_config={"plantcell": st.column_config.TextColumn(width=80),
                            "room x": st.column_config.TextColumn(width=480),
                            "room y": st.column_config.TextColumn(width=480)})
st.dataframe(pd.DataFrame({"plantscroll": range(8)}), hide_index=True, key="plant_scroll",
             height=120)

# bar counts above the plot area, cut by the axes (the range ends at the bars' top), and an
# annotation outside the chart; then the same bars with room for their counts
cut = go.Figure(go.Bar(x=["a", "b"], y=[111, 111], text=[111, 111], textposition="outside"))
cut.update_layout(title="plant bars", yaxis_range=[0, 111], height=260,
                  margin=dict(t=40, b=30, l=40, r=10))
cut.add_annotation(text="PLANT annotation", x=1.6, y=0.5, xref="paper", yref="paper",
                   showarrow=False)
whole = go.Figure(go.Bar(x=["a", "b"], y=[222, 222], text=[222, 222], textposition="outside",
                         cliponaxis=False))
whole.update_layout(title="whole bars", yaxis_range=[0, 260], height=260,
                    margin=dict(t=40, b=30, l=40, r=10))
c1, c2 = st.columns(2)
c1.plotly_chart(cut, key="plant_bars")
c2.plotly_chart(whole, key="whole_bars")
