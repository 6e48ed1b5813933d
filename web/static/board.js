/* termo board, part 2 of 4: rendering and input, for one board or several (board-state.js,
 * loaded first, holds the state, its storage and the requests; board-layout.js, on a page of
 * several boards, fits them to the screen; no framework, no build step, nothing from outside).
 *
 * The board is the input. The active row shows the suggestion ghosted; type another guess over
 * it or keep it (one guess for every board), set each tile's colour (click: absent -> present ->
 * correct -> absent; an uncoloured tile counts as absent), register the round. On a page of
 * several boards each board's tiles are coloured on their own; a board that shows all green is
 * solved: it takes no more rows and is marked. The history lives here and travels in every
 * request (POST /api/suggest); the server keeps nothing. A round the server refuses (an
 * impossible pattern, no candidate left, a hard-mode violation) is explained and not applied.
 *
 * Stable hooks: the element ids and data attributes the browser tests use (tests/browser_board.py,
 * bench/screenshots.py) are listed in docs/web.md ("Hooks for tests"); keep them. One board is
 * #board's own rows; several are its .mboard[data-board] and, on a narrow screen, #zoom.
 *
 * Keys (on the board or anywhere outside a form field):
 *   a symbol of the game             types it into the active row (over the ghost)
 *   Backspace                        deletes the last typed symbol
 *   Escape                           back to the suggestion (typed symbols and colours cleared)
 *   ArrowLeft / ArrowRight           chooses a tile (the cursor; across the unsolved boards)
 *   Space / ArrowUp                  next colour of the cursor's tile; ArrowDown: previous colour
 *   1 / 2 / 3 (letter games only)    absent / present / correct on the cursor's tile, cursor moves on
 *   Enter                            registers the round; Ctrl+Z (or Cmd+Z) undoes the last round
 */
(function () {
  "use strict";

  const { cfg, T, L, B, CYCLE, CODE, SLOW_MS, SUGGEST, CANDIDATES, $, board, state, fmt, num, localised, solvedOn,
    resetRow, touched, options, OPTION_IDS, controlValue, setControl, items, fold, keyStates, open, currentWord,
    guardColours, outcome, move, colour, tileContent, save, forget, kept, restoreOptions, restoreRow, keptChoice,
    keepChoice, post, warming } = window.termoBoard;  // board-state.js
  const layout = window.termoLayout || null;  // board-layout.js (several boards)
  const several = B > 1;
  const grids = several ? Array.from(document.querySelectorAll(".mboard[data-board]")) : [board];
  const rowEls = grids.map((g) => Array.from({ length: cfg.tries }, (_, r) => g.querySelector(`.row[data-row="${r}"]`)));
  const tileEls = grids.map((g, b) => rowEls[b].map((row) => Array.from({ length: L },
    (_, c) => row.querySelector(`.tile[data-col="${c}"]`))));
  const zoom = $("#zoom");
  const zoomTiles = zoom ? Array.from({ length: cfg.tries }, (_, r) => Array.from({ length: L },
    (_, c) => zoom.querySelector(`.tile[data-zrow="${r}"][data-zcol="${c}"]`))) : null;
  const keyEls = Array.from(document.querySelectorAll("#keyboard .key"))
    .filter((k) => k.dataset.key !== "Enter" && k.dataset.key !== "Backspace");

  // Ask the server about `history`; returns true when it was accepted (then it becomes the
  // board's history), false when refused (nothing changes; the reason is shown), null when a
  // newer request (or Undo) took over before the answer came (nothing changes, nothing is said).
  // opts.round: the request registers a round (Undo during it drops it); opts.keepRow: the row
  // being filled stays (an option change), else it is cleared once accepted.
  async function ask(history, opts = {}) {
    const seq = ++state.seq;
    if (state.controller) state.controller.abort();
    const controller = typeof AbortController === "function" ? new AbortController() : null;
    state.controller = controller;
    state.pending = { history, round: Boolean(opts.round) };
    setBusy(true);
    render();
    const last = history.length >= cfg.tries;
    const body = Object.assign(options(), { history: items(history) });
    if (cfg.list) body.list = cfg.list;
    if (last) ["level", "t", "objective"].forEach((k) => { delete body[k]; });  // the candidates only
    let answer;
    try {
      answer = await post(last ? CANDIDATES : SUGGEST, body, controller ? controller.signal : undefined);
    } catch (err) {
      if (seq !== state.seq) return null;
      setBusy(false);
      say(T.server_error, "error");  // the browser's own words ("Failed to fetch") are English
      render();
      return false;
    }
    if (seq !== state.seq) return null; // a newer request took over
    setBusy(false);
    if (!answer.ok) {
      const data = answer.data || {};
      say(fmt(T.not_applied, { message: localised(data.messages, data.detail || answer.status) }), "error");
      render();
      return false;
    }
    state.history = history;
    state.data = answer.data;
    const won = Boolean(answer.data.solved || answer.data.won);
    state.over = won || last;
    if (!opts.keepRow || state.over) resetRow();
    if (won) {
      say(outcome(), "win");
    } else if (last) {
      say(outcome(), "error");
    } else if (answer.warnings.length) {
      say(answer.warnings.map((w) => fmt(T.warning, { message: w })).join(" "), "note");
    } else {
      say("", "");
    }
    render();
    save();
    // board-after.js: the review, the share text and the statistics once the game is over
    document.dispatchEvent(new CustomEvent("termo:answered", { detail: { history, over: state.over, won } }));
    document.body.dataset.ready = "true";
    relayout();
    return true;
  }

  // drop the request on its way (its answer, when it comes, is ignored)
  function cancel() {
    state.seq++;
    if (state.controller) state.controller.abort();
    state.controller = null;
    setBusy(false);
  }

  // ------------------------------------------------------------------ actions

  async function register() {
    // one round at a time: a round registered while the last answer is still coming would be
    // played against the history before it
    if (state.over || state.busy) return;
    if (!touched()) {
      // a row nobody touched: a second click or Enter that came just after the last round
      say(T.touch_first, "note");
      return;
    }
    const word = currentWord();
    if (Array.from(word).length !== L) {
      say(fmt(T.not_applied, { message: fmt(cfg.unit === "letters" ? T.letters_needed : T.symbols_needed, { n: L }) }),
        "error");
      return;
    }
    const solved = solvedOn(state.history);
    const pattern = state.colours.map((row, b) => (solved[b] !== null ? "-" : row.map((c) => CODE[c]).join("")))
      .join("/");
    const accepted = await ask(state.history.concat([{ guess: word, pattern }]), { round: true });
    if (accepted) board.focus({ preventScroll: true });
  }

  async function undo() {
    if (state.busy && state.pending && state.pending.round) {
      // take back only the round being searched: the row keeps its word and colours
      cancel();
      say("", "");
      render();
      return;
    }
    if (!state.history.length) return;
    await ask(state.history.slice(0, -1));
  }

  async function newGame() {
    forget();
    resetRow();
    await ask([]);
  }

  function typeSymbol(key) {
    if (state.over || state.busy || state.typed.length >= L) return;
    const ch = fold(key);  // the symbol the key stands for in this game, or null: the reason is said
    if (ch === null) {
      say(fmt(cfg.unit === "letters" ? T.not_in_alphabet : T.not_a_symbol, { ch: key }), "error");
      return;
    }
    if ($("#message").dataset.kind === "error") say("", "");
    state.typed.push(ch);
    // a full row: the cursor goes back to the first tile (of the first unsolved board), ready for the colours
    state.cursor = state.typed.length === L ? { board: open()[0] || 0, col: 0 }
      : { board: state.cursor.board, col: state.typed.length };
    render();
  }

  function backspace() {
    if (state.over || state.busy || !state.typed.length) return;
    state.typed.pop();
    state.cursor = { board: state.cursor.board, col: Math.max(0, Math.min(state.typed.length, L - 1)) };
    render();
  }

  function cycle(b, col, step) {
    if (state.over || state.busy || !open().includes(b)) return;
    const current = CYCLE.indexOf(state.colours[b][col]);
    let next;
    if (current < 0) next = step > 0 ? 0 : CYCLE.length - 1;
    else next = (current + step + CYCLE.length) % CYCLE.length;
    colour(b, col, CYCLE[next]);
    render();
  }

  function setColour(b, col, name) {
    if (state.over || state.busy || !open().includes(b)) return;
    colour(b, col, name);
    move(1, false);
    render();
  }

  // ------------------------------------------------------------------ rendering

  function say(text, kind) {
    const box = $("#message");
    box.textContent = text;
    box.dataset.kind = kind || "";
  }

  function elapsed() {
    return Math.floor((Date.now() - state.since) / 1000);
  }

  function setBusy(busy) {
    state.busy = busy;
    if (!busy) {
      state.pending = null;
      state.controller = null;
    }
    const status = $("#status");
    document.body.dataset.busy = busy ? "true" : "false";
    if (state.ticker) { clearInterval(state.ticker); state.ticker = null; }
    if (busy) {
      state.since = Date.now();
      status.textContent = T.searching;
      state.ticker = setInterval(() => {
        const text = fmt(T.searching_elapsed, { s: elapsed() });
        if (status.textContent !== text) status.textContent = text;
        if (Date.now() - state.since >= SLOW_MS) notice(true);
      }, 250);
    } else {
      status.textContent = "";
      if (!state.warming) notice(false);
    }
    status.dataset.busy = busy ? "true" : "false";
  }

  function notice(show) {
    const box = $("#notice");
    if (box && box.hidden === show) {
      box.hidden = !show;
      relayout();
    }
  }

  function paintTile(tile, content, cursor) {
    tile.textContent = content.letter;
    tile.dataset.letter = content.letter;
    tile.dataset.state = content.state;
    tile.dataset.ghost = content.ghost ? "true" : "false";
    tile.dataset.cursor = cursor ? "true" : "false";
    tile.disabled = !content.active || state.busy;
  }

  // board b's rows and tiles (`labelled`: its own, with their spoken labels; else the zoom's copy)
  function paintBoard(rows, tiles, b, solved, word, ghost, labelled) {
    const turn = solved[b];
    for (let r = 0; r < cfg.tries; r++) {
      const active = r === state.history.length && !state.over && turn === null;
      rows[r].dataset.active = active ? "true" : "false";
      rows[r].dataset.busy = active && state.busy ? "true" : "false";
      if (several) rows[r].dataset.done = turn !== null && r >= turn ? "true" : "false";
      for (let c = 0; c < L; c++) {
        const content = tileContent(b, r, c, solved, word, ghost);
        const tile = tiles[r][c];
        paintTile(tile, content, content.active && !state.busy && state.cursor.board === b && state.cursor.col === c);
        if (!labelled) continue;
        const name = content.state === "empty" ? T.empty : T[content.state];
        tile.setAttribute("aria-label", several
          ? fmt(T.tile_label, { board: b + 1, col: c + 1, row: r + 1, letter: content.letter || "–", state: name })
          : fmt(T.tile, { col: c + 1, row: r + 1, letter: content.letter || "-", state: name }));
      }
    }
  }

  function renderBoard(b, solved, word, ghost) {
    if (several) {
      const el = grids[b];
      el.dataset.solved = solved[b] !== null ? "true" : "false";
      if (solved[b] !== null) el.dataset.solvedOn = String(solved[b]); else delete el.dataset.solvedOn;
      badge(el.querySelector(".mboard-badge"), b, solved[b]);
    }
    paintBoard(rowEls[b], tileEls[b], b, solved, word, ghost, true);
  }

  // a board's heading says its candidates left, or the turn that solved it
  function badge(el, b, turn) {
    const info = ((state.data || {}).boards || [])[b];
    const count = info && !info.solved ? info.candidates.toLocaleString(cfg.locale) : "";
    el.hidden = turn === null && !count;
    el.textContent = turn !== null ? fmt(T.solved_short, { turn, tries: cfg.tries }) : count;
    el.title = turn !== null ? fmt(T.solved_badge, { turn }) : count && fmt(T.board_left, { n: b + 1, count });
  }

  // the large view of the board being coloured (the cursor's), on a narrow screen
  function renderZoom(solved, word, ghost) {
    if (!zoom) return;
    const on = board.dataset.layout === "zoom";
    zoom.hidden = !on;
    const z = state.cursor.board;
    grids.forEach((g, b) => { g.dataset.zoomed = on && b === z ? "true" : "false"; });
    if (!on) return;
    zoom.dataset.shows = String(z);
    zoom.dataset.solved = solved[z] !== null ? "true" : "false";
    zoom.querySelector(".mboard-name").textContent = fmt(T.board, { n: z + 1 });
    badge(zoom.querySelector(".mboard-badge"), z, solved[z]);
    paintBoard(zoomTiles.map((row) => row[0].parentElement), zoomTiles, z, solved, word, ghost, false);
  }

  function render() {
    guardColours();
    const solved = solvedOn(state.history);
    const word = currentWord();
    const ghost = !state.typed.length;
    for (let b = 0; b < B; b++) renderBoard(b, solved, word, ghost);
    renderZoom(solved, word, ghost);
    renderKeyboard();
    renderPanel();
    const registerButton = $("#register");
    registerButton.disabled = state.over || state.busy || !touched();
    // the tooltip says what to do where the row is what keeps it off
    if (!state.over && !state.busy && !touched()) registerButton.title = T.touch_first;
    else registerButton.removeAttribute("title");
  }

  // what the registered rounds showed of each symbol (per board): the best state wins
  function renderKeyboard() {
    const known = keyStates(state.history);
    for (const key of keyEls) {
      const k = key.dataset.key;
      if (!several) {
        const name = known[0][k] || "empty";
        key.dataset.state = name;
        key.setAttribute("aria-label", name === "empty" ? k : `${k}: ${T[name]}`);
        continue;
      }
      const names = [];
      key.querySelectorAll(".seg").forEach((seg) => {
        const b = Number(seg.dataset.board);
        const s = known[b][k] || "empty";
        seg.dataset.state = s;
        names.push((b + 1) + " " + (s === "empty" ? T.unknown : T[s]));
      });
      key.setAttribute("aria-label", fmt(T.key_label, { key: k, states: names.join(", ") }));
    }
  }

  function text(sel, value) {
    const el = $(sel);
    if (el) el.textContent = value;
  }

  function renderPanel() {
    const data = state.data || {};
    const suggestion = $("#suggestion");
    const word = state.over ? "" : (data.word || "");
    suggestion.textContent = word;
    suggestion.dataset.word = word;
    $("#suggestion-section").dataset.stale = state.busy ? "true" : "false";
    const flag = word ? (data.is_candidate ? T.can_be_answer : T.cannot_be_answer) : "";
    text("#suggestion-flag", word ? `(${flag})` : "");
    text("#suggestion-bits", word && data.bits != null ? `${T.bits}: ${num(data.bits, 4)}` : "");
    text("#suggestion-psolve", word && data.p_solve != null ? `· ${T.p_solve}: ${num(100 * data.p_solve, 1)} %` : "");
    // several boards: the expected value of the objective (win: the chance to lose)
    const label = several ? T["expected_" + data.objective] || T.expected : T.expected;
    const value = data.objective === "win" ? `${num(100 * data.expected, 1)} %` : num(data.expected, 3);
    text("#suggestion-expected", word && data.expected != null ? (several ? "· " : "") + `${label}: ${value}` : "");
    $("#reason").textContent = state.over ? "" : localised(data.reason_messages, data.reason || "");
    $("#reason-title").hidden = !$("#reason").textContent;
    const result = $("#outcome");
    result.textContent = outcome();
    result.hidden = !state.over;
    result.dataset.kind = state.over ? (data.solved || data.won ? "win" : "lost") : "";
    text("#candidates-count", data.candidates != null ? String(data.candidates) : "…");
    const shown = cfg.unit === "letters" ? word.toUpperCase() : word;
    $("#compact").textContent = state.over ? outcome() : !word ? "" : several ? shown  // the counts: each board's heading
      : fmt(T.compact, { word: shown, flag, label: T.candidates, n: data.candidates != null ? data.candidates : "…" });
    const list = $("#candidates-list");
    if (list) list.replaceChildren(...(data.remaining || []).map((w) => Object.assign(document.createElement("li"), { textContent: w })));
    renderInfo(data);
    renderAlternatives(data, word);
  }

  function renderInfo(data) {
    const list = $("#boards-info");
    if (!list) return;
    list.replaceChildren(...(data.boards || []).map((info) => {
      const li = document.createElement("li");
      Object.assign(li.dataset, { board: String(info.board - 1), count: String(info.candidates),
        solved: info.solved ? "true" : "false" });
      const span = (className, text) => li.appendChild(Object.assign(document.createElement("span"), { className,
        textContent: text }));
      span("info-head", info.solved ? "✓ " + fmt(T.board_solved, { n: info.board, turn: info.solved_on })
        : fmt(T.board_left, { n: info.board, count: info.candidates.toLocaleString(cfg.locale) }));
      if (!info.solved) span("sample", (info.sample || []).slice(0, 6).join(" · ") + (info.candidates > 6 ? " …" : ""));
      return li;
    }));
  }

  function renderAlternatives(data, word) {
    const body = $("#alternatives tbody");
    body.replaceChildren(...(state.over ? [] : data.alternatives || []).map((alt) => {
      const tr = document.createElement("tr");
      tr.dataset.word = alt.word;
      tr.tabIndex = 0;
      const cells = several ? [alt.word, alt.bits != null ? num(alt.bits, 2) : "-",
        alt.p_solve != null ? num(100 * alt.p_solve, 1) : "-"]
        : [alt.word + (alt.is_candidate ? " *" : ""), alt.bits != null ? num(alt.bits, 4) : "-",
          alt.expected != null ? num(alt.expected, 3) : "-"];
      for (const value of cells) {
        const td = document.createElement("td");
        td.textContent = value;
        tr.appendChild(td);
      }
      const play = () => { playWord(alt.word); };
      tr.addEventListener("click", play);
      tr.addEventListener("keydown", (e) => {
        if (e.key === "Enter") { e.preventDefault(); play(); board.focus({ preventScroll: true }); }
      });
      return tr;
    }));
    // a move of the stored strategy has no alternatives: say why; otherwise hide the section
    // when there is nothing to compare (an opener, the end of a game)
    const fromTree = !state.over && word && data.source === "tree";
    $("#alternatives-note").hidden = !fromTree;
    $("#alternatives").hidden = body.children.length === 0;
    $("#alternatives-help").hidden = body.children.length === 0;
    body.closest("section").hidden = body.children.length === 0 && !fromTree;
  }

  function playWord(word) {
    if (state.over || state.busy) return;
    state.typed = Array.from(word).slice(0, L);
    state.cursor = { board: open()[0] || 0, col: 0 };
    render();
  }

  // fit the boards to the screen (several boards: board-layout.js), then show the zoom it chose
  function relayout() {
    if (!layout) return;
    layout.fit();
    const solved = solvedOn(state.history);
    renderZoom(solved, currentWord(), !state.typed.length);
  }

  // ------------------------------------------------------------------ input

  function isSymbolKey(key) {
    return Array.from(key).length === 1 && (cfg.unit === "letters" ? /\p{L}/u.test(key) : /\S/u.test(key));
  }

  function handleKey(e) {
    const target = e.target;
    const tag = target && target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    // a focused button (not a tile, not a key of the on-screen keyboard) keeps Enter and Space
    const onButton = tag === "BUTTON" && !target.classList.contains("tile") && !target.classList.contains("key") ||
      tag === "TR" || tag === "A" || tag === "SUMMARY";
    const key = e.key;
    if ((e.ctrlKey || e.metaKey) && (key === "z" || key === "Z")) { e.preventDefault(); undo(); return; }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (key === "Enter") {
      if (onButton) return; // the focused button's own action
      e.preventDefault();
      register();
    } else if (key === "Backspace") {
      e.preventDefault();
      backspace();
    } else if (key === "Escape") {
      if (state.busy) return;
      resetRow();
      render();
    } else if (key === "ArrowLeft" || key === "ArrowRight") {
      if (onButton) return;
      e.preventDefault();
      if (state.busy) return;
      move(key === "ArrowLeft" ? -1 : 1, true);
      render();
    } else if (key === " " || key === "ArrowUp" || key === "ArrowDown") {
      if (onButton) return;
      e.preventDefault();
      cycle(state.cursor.board, state.cursor.col, key === "ArrowDown" ? -1 : 1);
    } else if (cfg.digit_colours && (key === "1" || key === "2" || key === "3")) {
      e.preventDefault();
      setColour(state.cursor.board, state.cursor.col, CYCLE[Number(key) - 1]);
    } else if (isSymbolKey(key)) {
      if (onButton && tag !== "BUTTON") return;
      e.preventDefault();
      typeSymbol(key);
    }
  }

  document.addEventListener("keydown", handleKey);
  board.addEventListener("click", (e) => {
    const zoomed = e.target.closest("#zoom .tile");  // the large view colours the board it shows
    const small = !zoomed && board.dataset.layout === "zoom" && e.target.closest(".mboard[data-board]");
    const tile = e.target.closest(".tile");
    if (zoomed) {
      if (!zoomed.disabled && !state.busy) cycle(state.cursor.board, Number(zoomed.dataset.zcol), 1);
    } else if (small) {  // a small board: shown large (its colours are set there)
      if (Number(small.dataset.board) !== state.cursor.board) {
        state.cursor = { board: Number(small.dataset.board), col: 0 };
        render();
      }
    } else if (tile && !tile.disabled && !state.busy) {
      cycle(Number(tile.dataset.board || 0), Number(tile.dataset.col), 1);
    } else {
      return;
    }
    board.focus({ preventScroll: true });
  });
  $("#keyboard").addEventListener("click", (e) => {
    const key = e.target.closest(".key");
    if (!key) return;
    const k = key.dataset.key;
    if (k === "Enter") register();
    else if (k === "Backspace") backspace();
    else typeSymbol(k);
  });
  $("#register").addEventListener("click", () => { register(); });
  $("#undo").addEventListener("click", () => { undo().then(() => board.focus({ preventScroll: true })); });
  $("#new-game").addEventListener("click", () => { newGame().then(() => board.focus({ preventScroll: true })); });
  const switcher = $("#game-switcher");
  switcher.addEventListener("change", (e) => { window.location.href = "/" + e.target.value; });
  // back from another board: the browser restores the select as it was left; it names this page
  window.addEventListener("pageshow", () => { switcher.value = cfg.game; });

  // options: changed mid-game, the same history is asked again (with the round being searched,
  // if one is); refused -> the option goes back. The row being filled stays: its colours stay
  // only while the word under them does (guardColours)
  for (const id of OPTION_IDS) {
    const control = $(id);
    if (!control) continue;
    let previous = controlValue(control);
    control.addEventListener("change", async () => {
      const pending = state.busy && state.pending && state.pending.round ? state.pending : null;
      const ok = pending ? await ask(pending.history, { round: true }) : await ask(state.history.slice(), { keepRow: true });
      if (ok === false) {
        setControl(control, previous);
        save();
      } else if (ok) {
        previous = controlValue(control);
      }
    });
    control.addEventListener("restored", () => { previous = controlValue(control); });
  }

  // the high-contrast palette: one choice for every board
  const contrast = $("#opt-contrast");
  function applyContrast(on) {
    document.body.dataset.contrast = on ? "high" : "normal";
    contrast.checked = on;
  }
  applyContrast(keptChoice("contrast") === "high");
  contrast.addEventListener("change", () => {
    applyContrast(contrast.checked);
    keepChoice("contrast", contrast.checked ? "high" : "normal");
  });

  // the server warming up (a fresh install: kernels, matrices): say so until it is ready
  async function watchHealth() {
    state.warming = await warming();
    document.body.dataset.warming = state.warming ? "true" : "false";
    if (state.warming) {
      notice(true);
      setTimeout(watchHealth, 1500);
    } else if (!state.busy) {
      notice(false);
    }
  }

  async function start() {
    const snap = kept();
    restoreOptions(snap);
    const history = snap ? snap.history.filter((r) => r && typeof r.guess === "string" && typeof r.pattern === "string") : [];
    if (history.length) {
      const ok = await ask(history);
      if (ok === false) {
        const refused = $("#message").textContent;
        forget();
        await ask([]);
        say(fmt(T.restore_failed, { message: refused }), "error");
        return;
      }
      if (!ok) return;
    } else {
      const ok = await ask([]);
      if (!ok) return;
    }
    if (snap && snap.row && !state.over) {
      restoreRow(snap.row);
      render();
    }
  }

  // the row being filled is kept too (a discarded tab comes back as it was)
  board.addEventListener("click", () => { if (!state.busy) save(); });
  document.addEventListener("keyup", () => { if (!state.busy && document.body.dataset.ready === "true") save(); });
  window.addEventListener("resize", relayout);

  render();
  relayout();
  board.focus({ preventScroll: true });
  watchHealth();
  start();
})();
