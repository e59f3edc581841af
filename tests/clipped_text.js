// Text the page cuts off, found in the browser (evaluated by Playwright: tests/browser/test_clipping.py).
//
// Returns a list of findings, one string each ("kind: where: the text"), empty when every piece
// of text on the page is shown whole. Four kinds of cut are looked for:
//
//   html   - a text node that reaches past the box of an ancestor that cuts what overflows
//            (overflow hidden/clip, an ellipsis, or a horizontal scroll that hides the rest:
//            a select's value "scale: scale each column of |Z*| b…", a chip "0.0…", an
//            equation whose "= 0" sits behind a scroll bar);
//   plotly - an SVG text of a chart (axis title, tick label, annotation, legend entry, a bar's
//            count) that reaches past the chart's own box or past the clip region it is drawn
//            in (a bar label above the plot area, cut by the axes' clip path);
//   table  - a cell or header of a Streamlit dataframe (glide-data-grid draws on a canvas, so
//            the text is measured with the grid's own font against the width of its column)
//            wider than its column; columns hidden behind the grid's horizontal scroll bar;
//   scroll - a small dataframe (at most SMALL_ROWS rows) that scrolls inside itself.
//
// Only what is on the page counts: elements that are not displayed, and the screen reader
// copies of text (KaTeX's MathML, visually hidden labels), are skipped.
() => {
  const SLACK = 3;          // px: rounding and a glyph's side bearing are not a cut
  const SMALL_ROWS = 30;    // a table this short is shown whole, without a scroll bar of its own
  const roots = [...document.querySelectorAll('[data-testid=stMain], [data-testid=stSidebar]')];
  const found = [];
  const styles = new Map();
  const style = e => { if (!styles.has(e)) styles.set(e, getComputedStyle(e)); return styles.get(e); };
  const short = t => (t || '').replace(/\s+/g, ' ').trim().slice(0, 90);
  const where = e => {
    const block = e.closest('[data-testid=stElementContainer], [data-testid=stSidebar]');
    const id = block && block.querySelector('[data-testid]');
    return id ? id.getAttribute('data-testid') : e.tagName.toLowerCase();
  };
  const shown = e => {
    for (let x = e; x && x.nodeType === 1; x = x.parentElement) {
      const s = style(x);
      if (s.display === 'none' || s.visibility === 'hidden' || s.opacity === '0') return false;
    }
    return true;
  };
  // Screen-reader copies: drawn nowhere, kept in a 1 px box on purpose.
  const offscreenCopy = e => !!e.closest('.katex-mathml, [data-testid=stScreenReaderOnly]') || (() => {
    for (let x = e; x && x.nodeType === 1; x = x.parentElement) {
      const r = x.getBoundingClientRect();
      const s = style(x);
      if ((s.position === 'absolute' || s.position === 'fixed') && r.width <= 2 && r.height <= 2) return true;
      if (s.clip && s.clip !== 'auto') return true;
    }
    return false;
  })();

  // -- html: text nodes against every clipping ancestor --------------------------------------
  const cutBy = new Map();  // clipping element -> the texts it cuts (one finding per element)
  for (const root of roots) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.textContent.trim()) continue;
      const parent = node.parentElement;
      if (!parent || parent.closest('svg, canvas') || offscreenCopy(parent) || !shown(parent)) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      const rects = [...range.getClientRects()].filter(r => r.width > 0 && r.height > 0);
      if (!rects.length) continue;
      const box = {left: Math.min(...rects.map(r => r.left)), right: Math.max(...rects.map(r => r.right)),
                   top: Math.min(...rects.map(r => r.top)), bottom: Math.max(...rects.map(r => r.bottom))};
      for (let a = parent; a && a !== root.parentElement; a = a.parentElement) {
        const s = style(a);
        const cutsX = s.overflowX !== 'visible' || s.textOverflow === 'ellipsis';
        const cutsY = s.overflowY === 'hidden' || s.overflowY === 'clip';
        if (!cutsX && !cutsY) continue;
        const r = a.getBoundingClientRect();
        // the box's inside: without borders and the scroll bar
        const left = r.left + a.clientLeft, right = left + a.clientWidth;
        const top = r.top + a.clientTop, bottom = top + a.clientHeight;
        if (a.clientWidth === 0 || a.clientHeight === 0) continue;
        const outX = cutsX && (box.right > right + SLACK || box.left < left - SLACK);
        // Vertically, a line box is taller than its glyphs (KaTeX stacks zero-height rows):
        // a line counts as cut when a third of it is outside. A page, a sidebar or a block
        // that scrolls vertically does not cut text (only hidden/clip count).
        const third = (box.bottom - box.top) / 3;
        const outY = cutsY && (box.bottom > bottom + third || box.top < top - third);
        if (outX || outY) {
          if (!cutBy.has(a)) cutBy.set(a, []);
          cutBy.get(a).push(short(node.textContent));
          break;
        }
      }
    }
  }
  for (const [a, texts] of cutBy) {
    const what = texts.length > 1 ? `"${texts[0]}" … "${texts[texts.length - 1]}" (${texts.length} texts)` : `"${texts[0]}"`;
    found.push(`html: ${where(a)}: ${what} cut by a ${Math.round(a.clientWidth)}x${Math.round(a.clientHeight)} px box`);
  }

  // -- inputs: a value wider than its field (a select's chosen option, a typed number) ------
  for (const root of roots) {
    for (const input of root.querySelectorAll('input, textarea')) {
      const type = (input.getAttribute('type') || 'text').toLowerCase();
      if (!['text', 'search', 'number', ''].includes(type) || !input.value || !shown(input)) continue;
      if (input.clientWidth > 0 && input.scrollWidth > input.clientWidth + SLACK) {
        found.push(`html: ${where(input)}: "${short(input.value)}" (${input.scrollWidth} px in a ${input.clientWidth} px field)`);
      }
    }
  }

  // -- plotly: SVG text against its chart and its clip paths --------------------------------
  const screenRect = (clipper, clipPathEl) => {
    const shape = clipPathEl.querySelector('rect');
    if (!shape) return null;
    const m = clipper.getScreenCTM();
    const x = +shape.getAttribute('x') || 0, y = +shape.getAttribute('y') || 0;
    const w = +shape.getAttribute('width') || 0, h = +shape.getAttribute('height') || 0;
    const pts = [[x, y], [x + w, y + h]].map(([px, py]) => new DOMPoint(px, py).matrixTransform(m));
    return {left: Math.min(pts[0].x, pts[1].x), right: Math.max(pts[0].x, pts[1].x),
            top: Math.min(pts[0].y, pts[1].y), bottom: Math.max(pts[0].y, pts[1].y)};
  };
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    if (!shown(plot)) continue;
    const container = plot.querySelector('.svg-container') || plot;
    const bounds = container.getBoundingClientRect();
    const title = short((plot.querySelector('.gtitle') || {}).textContent) || 'chart';
    for (const t of plot.querySelectorAll('svg.main-svg text')) {
      const text = t.textContent.trim();
      if (!text || !shown(t)) continue;
      if (t.closest('.hoverlayer, .modebar')) continue;  // tooltips come and go with the mouse
      const b = t.getBoundingClientRect();
      if (b.width === 0 || b.height === 0) continue;
      if (b.left < bounds.left - SLACK || b.right > bounds.right + SLACK ||
          b.top < bounds.top - SLACK || b.bottom > bounds.bottom + SLACK) {
        found.push(`plotly: ${title}: "${short(text)}" outside the chart`);
        continue;
      }
      for (let a = t.parentElement; a && a.tagName.toLowerCase() !== 'svg'; a = a.parentElement) {
        const ref = a.getAttribute('clip-path') || '';
        const id = (ref.match(/url\(["']?#([^"')]+)["']?\)/) || [])[1];
        if (!id) continue;
        const clipPathEl = plot.querySelector(`[id="${id}"]`) || document.getElementById(id);
        const c = clipPathEl && screenRect(a, clipPathEl);
        if (c && (b.left < c.left - SLACK || b.right > c.right + SLACK ||
                  b.top < c.top - SLACK || b.bottom > c.bottom + SLACK)) {
          found.push(`plotly: ${title}: "${short(text)}" cut by its clip region`);
          break;
        }
      }
    }
  }

  // -- table: glide-data-grid columns measured with the grid's font -------------------------
  const ctx = document.createElement('canvas').getContext('2d');
  for (const grid of document.querySelectorAll('[data-testid=stDataFrame]')) {
    if (!shown(grid)) continue;
    const canvas = grid.querySelector('[data-testid=data-grid-canvas]');
    const editor = grid.querySelector('.stDataFrameGlideDataEditor');
    if (!canvas || !editor) continue;
    const key = Object.keys(canvas).find(k => k.startsWith('__reactFiber'));
    let props = null;
    for (let f = key && canvas[key]; f; f = f.return) {
      const p = f.memoizedProps || {};
      if (Array.isArray(p.columns) && p.columns.every(c => typeof c.width === 'number') &&
          typeof p.getCellContent === 'function' && typeof p.rows === 'number') { props = p; break; }
    }
    const name = short([...grid.querySelectorAll('th')].map(th => th.textContent).join(' | '));
    if (!props) { found.push(`table: ${name}: its columns could not be read`); continue; }
    const es = getComputedStyle(editor);
    const family = es.getPropertyValue('--gdg-font-family').trim() || 'sans-serif';
    const pad = parseFloat(es.getPropertyValue('--gdg-cell-horizontal-padding')) || 8;
    const headerFont = (es.getPropertyValue('--gdg-header-font-style').trim() || '600 13px') + ' ' + family;
    const baseFont = (es.getPropertyValue('--gdg-base-font-style').trim() || '13px') + ' ' + family;
    const rows = Math.min(props.rows, 200);
    props.columns.forEach((col, i) => {
      ctx.font = headerFont;
      let need = ctx.measureText(String(col.title || '')).width, widest = col.title;
      ctx.font = baseFont;
      for (let r = 0; r < rows; r++) {
        let cell;
        try { cell = props.getCellContent([i, r]); } catch (e) { continue; }
        const d = cell && (cell.displayData ?? (cell.data && cell.data.label));
        if (d === undefined || d === null || typeof d === 'object') continue;
        const w = ctx.measureText(String(d)).width;
        if (w > need) { need = w; widest = d; }
      }
      if (need + 2 * pad > col.width + SLACK) {
        found.push(`table: ${name}: column "${col.title}" is ${Math.round(col.width)} px, "${short(String(widest))}" needs ${Math.ceil(need + 2 * pad)} px`);
      }
    });
    const scroller = grid.querySelector('.dvn-scroller');
    if (scroller && scroller.scrollWidth > scroller.clientWidth + SLACK) {
      found.push(`table: ${name}: ${Math.round(scroller.scrollWidth - scroller.clientWidth)} px of columns hidden behind a horizontal scroll bar`);
    }
    if (scroller && props.rows <= SMALL_ROWS && scroller.scrollHeight > scroller.clientHeight + SLACK) {
      found.push(`scroll: ${name}: ${props.rows} rows scroll inside the table`);
    }
  }
  return found;
}
