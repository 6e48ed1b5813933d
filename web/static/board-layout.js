/* termo board, part 3 of 4 (pages of several boards only): the boards fitted to the screen.
 *
 * Loaded after board-state.js and before board.js, which calls `termoLayout.fit()` when the page
 * opens, when the window changes size and after each answer. The boards, the buttons and the
 * keyboard are kept inside the window without scrolling (the panel may be below them):
 *   - "grid": every board the same size, in the number of columns that gives the largest tiles
 *     (8 boards on a wide screen: one row of eight; 4: a row of four, or 2×2);
 *   - "zoom" (a narrow screen where the grid's tiles would be under MIN_TILE px): the board being
 *     coloured large (#zoom, at least MIN_TILE px where the screen allows), beside or below small
 *     copies of every board (a tap on one shows it large);
 *   - a window too low for either (a phone held sideways: tiles under FLOOR px): the page's own
 *     columns, the tiles as wide as they fit, and the page scrolls.
 * The sizes are CSS variables on #board (--tile, --cols, ...; board.css draws with them); the
 * geometry below is the one board.css gives the boards, and what is measured afterwards decides:
 * a layout that still overflows is made smaller until it fits.
 */
(function () {
  "use strict";

  const { cfg, L, B, $, board } = window.termoBoard;  // board-state.js
  const R = cfg.tries;
  const MIN_TILE = 24;      // px: the smallest tile a narrow screen shows for the board being coloured
  const MAX_TILE = 52;      // px: the largest tile of a board
  const MIN_MINI = 5;       // px: the smallest tile of a small copy (colours only below LETTERS)
  const MAX_MINI = 16;
  const LETTERS = 12;       // px: a small copy shows its letters from this tile size on
  const FLOOR = 10;         // px: below this the page gives up fitting the height and scrolls
  const MARGIN = 6;         // px kept free below the keyboard
  // one board's geometry (px): gap between tiles, padding, border, heading (and the gap below it)
  const GRID = { gap: 2, pad: 2, bd: 2, head: 16 };
  const ZOOM = { gap: 2, pad: 2, bd: 2, head: 18 };
  const MINI = { gap: 1, pad: 1, bd: 2, head: 0 };
  const narrow = window.matchMedia("(max-width: 819px)");

  function width(t, g) { return L * t + (L - 1) * g.gap + 2 * (g.pad + g.bd); }
  function height(t, g) { return (g.head ? g.head + g.gap : 0) + R * t + (R - 1) * g.gap + 2 * (g.pad + g.bd); }

  // the largest tile for `n` boards of geometry `g` in `cols` columns inside w × h (gap between boards: `bg`)
  function tileIn(n, cols, w, h, g, bg) {
    const rows = Math.ceil(n / cols);
    const byW = (w - (cols - 1) * bg - cols * (width(0, g))) / (cols * L);
    const byH = (h - (rows - 1) * bg - rows * height(0, g)) / (rows * R);
    return Math.floor(Math.min(byW, byH));
  }

  function bestGrid(w, h, bg) {
    let best = { t: -1, cols: 1 };
    for (let cols = B; cols >= 1; cols--) {
      const t = Math.min(MAX_TILE, tileIn(B, cols, w, h, GRID, bg));
      if (t > best.t) best = { t, cols };
    }
    return best;
  }

  // the zoom: the largest tile for the board being coloured that leaves room for the small copies
  // (below it or beside it, in `cols` columns), their tiles at least MIN_MINI
  function bestZoom(w, h, bg) {
    for (let t = MAX_TILE; t >= MIN_MINI; t--) {
      const zw = width(t, ZOOM);
      const zh = height(t, ZOOM);
      if (zw > w || zh > h) continue;
      let best = null;
      for (let cols = 1; cols <= B; cols++) {
        for (const side of [false, true]) {
          const mw = side ? w - zw - bg : w;
          const mh = side ? h : h - zh - bg;
          const m = Math.min(MAX_MINI, tileIn(B, cols, mw, mh, MINI, bg));
          if (m >= MIN_MINI && (!best || m > best.m)) best = { t, m, cols, side, rows: Math.ceil(B / cols) };
        }
      }
      if (best) return best;
    }
    return null;
  }

  function apply(plan) {
    const s = board.style;
    board.dataset.layout = plan.zoom ? "zoom" : "grid";
    $("#zoom").hidden = !plan.zoom;
    const g = plan.zoom ? ZOOM : GRID;
    s.setProperty("--gap", g.gap + "px");
    s.setProperty("--pad", g.pad + "px");
    s.setProperty("--bd", g.bd + "px");
    s.setProperty("--head", g.head + "px");
    s.setProperty("--board-gap", plan.bg + "px");
    s.setProperty("--tile", plan.t + "px");
    if (plan.zoom) {
      s.setProperty("--mini", plan.m + "px");
      s.setProperty("--cols", String(plan.cols + (plan.side ? 1 : 0)));
      s.setProperty("--mini-rows", String(plan.rows));
      board.dataset.arrange = plan.side ? "side" : "below";
      board.dataset.letters = plan.m >= LETTERS ? "true" : "false";
    } else {
      s.setProperty("--cols", String(plan.cols));
      delete board.dataset.arrange;
      delete board.dataset.letters;
    }
  }

  // how far the keyboard's bottom is below the window's (px; <= 0: it fits)
  function overflow() {
    const keys = $("#keyboard").getBoundingClientRect();
    return keys.bottom + window.scrollY - (window.innerHeight - MARGIN);
  }

  function plan(w, h) {
    const bg = narrow.matches ? 6 : 10;
    const grid = bestGrid(w, h, bg);
    if (narrow.matches && grid.t < MIN_TILE) {
      const zoom = bestZoom(w, h, bg);
      if (zoom && zoom.t > grid.t && zoom.t >= FLOOR) return Object.assign({ zoom: true, bg }, zoom);
    }
    if (grid.t >= FLOOR) return { zoom: false, bg, t: grid.t, cols: grid.cols };
    // a window too low for any of it (a phone held sideways): the page's own columns, the tiles
    // as wide as they fit, and the page scrolls
    const cols = Math.min(B, cfg.columns || B);
    return { zoom: false, bg, t: Math.max(FLOOR, Math.min(MAX_TILE, tileIn(B, cols, w, Infinity, GRID, bg))), cols,
      scroll: true };
  }

  function fit() {
    let w = board.clientWidth;
    // everything but the boards, from the top of the page to the keyboard's bottom
    const rest = $("#keyboard").getBoundingClientRect().bottom + window.scrollY - board.offsetHeight;
    let h = window.innerHeight - MARGIN - rest;
    let chosen = null;
    // what board.css really drew decides: smaller until the boards are inside their width and the
    // keyboard inside the window
    for (let i = 0; i < 8; i++) {
      chosen = plan(w, h);
      apply(chosen);
      const over = overflow();
      const wide = board.scrollWidth - board.clientWidth;
      if ((over <= 0 || chosen.scroll) && wide <= 0) break;
      if (over > 0 && !chosen.scroll) h -= Math.ceil(over);
      if (wide > 0) w -= wide;
    }
    // the boards' headings: their names only where name and badge both fit (else the badge alone)
    board.dataset.names = "on";
    const heads = Array.from(board.querySelectorAll(".mboard[data-board] .mboard-head"));
    if (heads.some((head) => head.scrollWidth > head.clientWidth)) board.dataset.names = "off";
    return chosen;
  }

  window.termoLayout = { fit, MIN_TILE };
})();
