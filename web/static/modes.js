/* termo mode board (several boards at once), part 2 of 2: rendering and input (modes-state.js,
 * loaded first, holds the state, its storage and the requests; nothing from outside).
 *
 * The guess is typed once, for every board; the active row of each unsolved board shows it (the
 * suggestion ghosted until something is typed); each board's tiles are coloured on their own
 * (click or tap: grey -> yellow -> green -> grey; an uncoloured tile counts as grey); Register
 * sends the round. A board that shows all green is solved: it takes no more rows and is marked.
 * A round the server refuses is explained (in the game's language) and not applied.
 *
 * Stable hooks (the browser tests use them; keep them):
 *   #boards                               the boards; focusable, takes the keys
 *   .mboard[data-board=b][data-solved]    board b (0-based); data-solved-on: the turn it was solved
 *   .tile[data-board=b][data-row=i][data-col=j]   data-letter, data-state (empty | absent | present
 *                                         | correct), data-ghost="true" on the suggestion,
 *                                         data-cursor="true" on the keys' tile
 *   .row[data-board=b][data-row=i]        data-active="true" on the row being filled
 *   #register #undo #new-game             the buttons
 *   #suggestion[data-word] #reason #suggestion-bits #suggestion-psolve #suggestion-expected
 *   #boards-info li[data-board=b]         per board: data-count (candidates left), data-solved; .sample
 *   #alternatives tbody tr[data-word]     the alternatives; click: type it
 *   #opt-level #opt-objective #opt-contrast   the options
 *   #keyboard .key[data-key] .seg[data-board=b][data-state]   the keys, one segment per board
 *   #message (data-kind: error | win | note)  #status (data-busy="true" while a request runs)
 *   body[data-ready="true"]               once the first answer has arrived
 *
 * Keys: a symbol types it · Backspace deletes · Escape back to the suggestion · ArrowLeft/Right
 * choose a tile, across the boards · Space/ArrowUp next colour, ArrowDown previous · 1/2/3 (letter
 * games) grey/yellow/green and on to the next tile · Enter registers · Ctrl+Z undoes.
 */
(function () {
  "use strict";

  const { cfg, T, L, B, CYCLE, CODE, CONTRAST_STORE, SLOW_MS, $, state, fmt, num, localised, solvedOn,
    unsolved, resetRow, touched, options, items, fold, keyStates, save, forget, kept, post } = window.termoModes;
  const boardsEl = $("#boards");
  const tiles = Array.from({ length: B }, (_, b) =>
    Array.from({ length: cfg.tries }, (_, r) =>
      Array.from(document.querySelectorAll(`.tile[data-board="${b}"][data-row="${r}"]`))));
  const rows = Array.from({ length: B }, (_, b) =>
    Array.from(document.querySelectorAll(`.row[data-board="${b}"]`)));
  const segs = Array.from(document.querySelectorAll("#keyboard .key")).filter((k) => k.querySelector(".seg"));

  resetRow();

  function currentWord() {
    if (state.typed.length) return state.typed.join("");
    return state.data && state.data.word && !state.over ? state.data.word : "";
  }

  function guardColours() {
    if (state.colourWord !== null && currentWord() !== state.colourWord) {
      state.colours = Array.from({ length: B }, () => new Array(L).fill("empty"));
      state.colourWord = null;
    }
  }

  function say(text, kind) {
    const el = $("#message");
    el.textContent = text;
    el.dataset.kind = kind || "";
  }

  function setBusy(on) {
    state.busy = on;
    document.body.dataset.busy = on ? "true" : "false";
    const status = $("#status");
    status.dataset.busy = on ? "true" : "false";
    if (state.ticker) { clearInterval(state.ticker); state.ticker = null; }
    status.textContent = "";
    if (on) {
      state.since = Date.now();
      state.ticker = setInterval(() => {
        const ms = Date.now() - state.since;
        if (ms >= SLOW_MS) status.textContent = fmt(T.searching_elapsed, { s: Math.floor(ms / 1000) });
      }, 250);
      status.textContent = T.searching;
    }
  }

  // ------------------------------------------------------------------ the server

  // Ask about `history`: true when accepted (it becomes the board's history), false when refused
  // (nothing changes; the reason is said), null when a newer request took over.
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
    if (last) { delete body.level; delete body.objective; }
    let answer;
    try {
      answer = await post(last ? "/api/mode/boards" : "/api/mode/suggest", body, controller ? controller.signal : undefined);
    } catch (err) {
      if (seq !== state.seq) return null;
      setBusy(false);
      say(T.server_error, "error");
      render();
      return false;
    }
    if (seq !== state.seq) return null;
    setBusy(false);
    state.pending = null;
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
    say(state.over ? outcome(won) : "", state.over ? (won ? "win" : "error") : "");
    render();
    save();
    document.body.dataset.ready = "true";
    return true;
  }

  function cancel() {
    state.seq++;
    if (state.controller) state.controller.abort();
    state.controller = null;
    state.pending = null;
    setBusy(false);
  }

  function outcome(won) {
    if (won) return fmt(T.won, { n: state.history.length, tries: cfg.tries });
    const boards = ((state.data && state.data.boards) || []).filter((b) => !b.solved)
      .map((b) => fmt(T.lost_board, { n: b.board, words: (b.sample || []).slice(0, 3).join(", ") }));
    return fmt(T.lost_boards, { boards: boards.join("; ") });
  }

  // ------------------------------------------------------------------ actions

  async function register() {
    if (state.over || state.busy) return;
    if (!touched()) { say(T.touch_first, "note"); return; }
    const word = currentWord();
    if (Array.from(word).length !== L) {
      say(fmt(T.not_applied, { message: fmt(cfg.unit === "letters" ? T.letters_needed : T.symbols_needed, { n: L }) }), "error");
      return;
    }
    const solved = solvedOn(state.history);
    const patterns = state.colours.map((row, b) => (solved[b] !== null ? null : row.map((c) => CODE[c]).join("")));
    const accepted = await ask(state.history.concat([{ guess: word, patterns }]), { round: true });
    if (accepted) boardsEl.focus();
  }

  async function undo() {
    if (state.busy && state.pending && state.pending.round) { cancel(); say("", ""); render(); return; }
    if (!state.history.length) return;
    state.over = false;
    await ask(state.history.slice(0, -1));
  }

  async function newGame() {
    forget();
    state.history = [];
    state.over = false;
    resetRow();
    await ask([]);
  }

  function typeSymbol(key) {
    if (state.over || state.busy) return;
    const ch = fold(key);
    if (ch === null) {
      say(fmt(cfg.unit === "letters" ? T.not_in_alphabet : T.not_a_symbol, { ch: key }), "note");
      return;
    }
    if (state.typed.length >= L) return;
    state.typed.push(ch);
    guardColours();
    // the word typed: the colouring starts on the first tile of the first unsolved board
    state.cursor = state.typed.length === L ? { board: open()[0], col: 0 }
      : { board: state.cursor.board, col: state.typed.length };
    say("", "");
    render();
  }

  function backspace() {
    if (state.over || state.busy || !state.typed.length) return;
    state.typed.pop();
    guardColours();
    state.cursor.col = Math.max(0, Math.min(state.typed.length, L - 1));
    render();
  }

  function open() { return unsolved(state.history); }

  function setColour(board, col, colour, advance) {
    if (state.over || state.busy || !open().includes(board)) return;
    if (!currentWord()) return;
    state.colourWord = currentWord();
    state.colours[board][col] = colour;
    state.cursor = { board, col };
    if (advance) move(1);
    say("", "");
    render();
  }

  function cycle(board, col, step) {
    const now = state.colours[board][col];
    const at = CYCLE.indexOf(now);
    const next = at < 0 ? (step > 0 ? 0 : CYCLE.length - 1) : (at + step + CYCLE.length) % CYCLE.length;
    setColour(board, col, CYCLE[next], false);
  }

  // the cursor moves across the tiles of the unsolved boards, in board order
  function move(step) {
    const boards = open();
    if (!boards.length) return;
    const spots = boards.flatMap((b) => Array.from({ length: L }, (_, c) => [b, c]));
    let at = spots.findIndex(([b, c]) => b === state.cursor.board && c === state.cursor.col);
    if (at < 0) at = 0;
    const [b, c] = spots[(at + step + spots.length) % spots.length];
    state.cursor = { board: b, col: c };
  }

  // ------------------------------------------------------------------ rendering

  function colourName(s) { return s === "empty" ? T.empty : T[s]; }

  function renderBoard(b, solved, activeRow, word, ghost) {
    const solvedTurn = solved[b];
    const el = document.querySelector(`.mboard[data-board="${b}"]`);
    el.dataset.solved = solvedTurn !== null ? "true" : "false";
    if (solvedTurn !== null) el.dataset.solvedOn = String(solvedTurn); else delete el.dataset.solvedOn;
    const badge = el.querySelector(".mboard-badge");
    badge.hidden = solvedTurn === null;
    badge.textContent = solvedTurn === null ? "" : "✓ " + fmt(T.solved_badge, { turn: solvedTurn });
    const letters = Array.from(word);
    for (let r = 0; r < cfg.tries; r++) {
      const round = state.history[r];
      const active = r === activeRow && solvedTurn === null && !state.over;
      const rowEl = rows[b][r];
      rowEl.dataset.active = active ? "true" : "false";
      rowEl.dataset.busy = active && state.busy ? "true" : "false";
      rowEl.dataset.done = solvedTurn !== null && r >= solvedTurn ? "true" : "false";
      for (let c = 0; c < L; c++) {
        const tile = tiles[b][r][c];
        let letter = "";
        let colour = "empty";
        if (round && round.patterns[b] !== null) {
          letter = Array.from(round.guess)[c] || "";
          colour = { B: "absent", Y: "present", G: "correct" }[round.patterns[b][c]] || "empty";
        } else if (active) {
          letter = letters[c] || "";
          colour = state.colours[b][c];
        }
        tile.textContent = letter;
        tile.dataset.letter = letter;
        tile.dataset.state = colour;
        tile.dataset.ghost = active && ghost && letter ? "true" : "false";
        tile.dataset.cursor = active && !state.busy && state.cursor.board === b && state.cursor.col === c ? "true" : "false";
        tile.disabled = !active || state.busy;
        tile.tabIndex = -1;
        tile.setAttribute("aria-label", fmt(T.tile_label, { board: b + 1, col: c + 1, row: r + 1,
          letter: letter || "–", state: colourName(colour) }));
      }
    }
  }

  function renderKeys() {
    const known = keyStates(state.history);
    for (const key of segs) {
      const ch = key.dataset.key;
      const names = [];
      key.querySelectorAll(".seg").forEach((seg) => {
        const b = Number(seg.dataset.board);
        const s = known[b][ch] || "empty";
        seg.dataset.state = s;
        names.push((b + 1) + " " + (s === "empty" ? T.unknown : T[s]));
      });
      key.setAttribute("aria-label", fmt(T.key_label, { key: ch, states: names.join(", ") }));
    }
  }

  function renderPanel() {
    const data = state.data || {};
    const word = state.over ? "" : (data.word || "");
    const sug = $("#suggestion");
    sug.textContent = word;
    sug.dataset.word = word;
    $("#suggestion-bits").textContent = word && typeof data.bits === "number" ? num(data.bits, 2) + " " + T.bits.toLowerCase() : "";
    $("#suggestion-psolve").textContent = word && typeof data.p_solve === "number"
      ? "· " + T.p_solve + ": " + num(100 * data.p_solve, 1) + " %" : "";
    $("#suggestion-expected").textContent = word && typeof data.expected === "number"
      ? "· " + T.expected + ": " + num(data.expected, 3) : "";
    $("#reason").textContent = localised(data.reason_messages, data.reason || "");
    // the phone's one line above the boards: the word and each board's candidates (✓ solved)
    const counts = (data.boards || []).map((b) => (b.solved ? "✓" : String(b.candidates)));
    $("#compact").textContent = state.over ? "" : [word.toUpperCase()].concat(counts).filter(Boolean).join(" · ");
    const outcomeEl = $("#outcome");
    outcomeEl.hidden = !state.over;
    outcomeEl.textContent = state.over ? $("#message").textContent : "";
    $("#suggestion-section").dataset.stale = state.busy ? "true" : "false";
    renderInfo(data);
    renderAlternatives(data);
  }

  function renderInfo(data) {
    const list = $("#boards-info");
    list.textContent = "";
    for (const info of data.boards || []) {
      const li = document.createElement("li");
      li.dataset.board = String(info.board - 1);
      li.dataset.count = String(info.candidates);
      li.dataset.solved = info.solved ? "true" : "false";
      const head = document.createElement("span");
      head.className = "info-head";
      head.textContent = info.solved ? "✓ " + fmt(T.board_solved, { n: info.board, turn: info.solved_on })
        : fmt(T.board_left, { n: info.board, count: info.candidates.toLocaleString(cfg.locale) });
      li.appendChild(head);
      if (!info.solved) {
        const sample = document.createElement("span");
        sample.className = "sample";
        sample.textContent = (info.sample || []).slice(0, 6).join(" · ") + (info.candidates > 6 ? " …" : "");
        li.appendChild(sample);
      }
      list.appendChild(li);
    }
  }

  function renderAlternatives(data) {
    const body = $("#alternatives tbody");
    body.textContent = "";
    $("#alternatives-section").dataset.empty = state.over || !(data.alternatives || []).length ? "true" : "false";
    if (state.over) return;
    for (const alt of data.alternatives || []) {
      const tr = document.createElement("tr");
      tr.dataset.word = alt.word;
      tr.tabIndex = 0;
      for (const text of [alt.word, num(alt.bits, 2), num(100 * alt.p_solve, 1)]) {
        const td = document.createElement("td");
        td.textContent = text;
        tr.appendChild(td);
      }
      body.appendChild(tr);
    }
  }

  function render() {
    const solved = solvedOn(state.history);
    const activeRow = state.history.length;
    const word = currentWord();
    const ghost = !state.typed.length;
    for (let b = 0; b < B; b++) renderBoard(b, solved, activeRow, word, ghost);
    renderKeys();
    renderPanel();
    $("#register").disabled = state.over || state.busy || !touched();
    $("#undo").disabled = !state.history.length && !state.busy;
  }

  // ------------------------------------------------------------------ input

  function isSymbolKey(key) {
    if (Array.from(key).length !== 1) return false;
    return cfg.unit === "letters" ? /\p{L}/u.test(key) : /\S/u.test(key);
  }

  function handleKey(e) {
    const target = e.target;
    const tag = target && target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    const onButton = (tag === "BUTTON" && !target.classList.contains("tile") && !target.classList.contains("key")) ||
      tag === "TR" || tag === "A";
    const key = e.key;
    if ((e.ctrlKey || e.metaKey) && (key === "z" || key === "Z")) { e.preventDefault(); undo(); return; }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (key === "Enter") {
      if (onButton) return;
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
      if (onButton || state.busy) return;
      e.preventDefault();
      move(key === "ArrowLeft" ? -1 : 1);
      render();
    } else if (key === " " || key === "ArrowUp" || key === "ArrowDown") {
      if (onButton) return;
      e.preventDefault();
      cycle(state.cursor.board, state.cursor.col, key === "ArrowDown" ? -1 : 1);
    } else if (cfg.digit_colours && (key === "1" || key === "2" || key === "3")) {
      e.preventDefault();
      setColour(state.cursor.board, state.cursor.col, CYCLE[Number(key) - 1], true);
    } else if (isSymbolKey(key)) {
      if (onButton) return;
      e.preventDefault();
      typeSymbol(key);
    }
  }

  document.addEventListener("keydown", handleKey);
  boardsEl.addEventListener("click", (e) => {
    const tile = e.target.closest(".tile");
    if (!tile || tile.disabled || state.busy) return;
    cycle(Number(tile.dataset.board), Number(tile.dataset.col), 1);
    boardsEl.focus({ preventScroll: true });
  });
  $("#keyboard").addEventListener("click", (e) => {
    const key = e.target.closest(".key");
    if (!key) return;
    const k = key.dataset.key;
    if (k === "Enter") register();
    else if (k === "Backspace") backspace();
    else typeSymbol(k);
  });
  $("#alternatives tbody").addEventListener("click", (e) => {
    const tr = e.target.closest("tr[data-word]");
    if (!tr || state.over || state.busy) return;
    state.typed = Array.from(tr.dataset.word).map((ch) => fold(ch) || ch).slice(0, L);
    guardColours();
    render();
  });
  $("#register").addEventListener("click", () => { register(); });
  $("#undo").addEventListener("click", () => { undo().then(() => boardsEl.focus()); });
  $("#new-game").addEventListener("click", () => { newGame().then(() => boardsEl.focus()); });
  $("#game-switcher").addEventListener("change", (e) => { window.location.href = "/" + e.target.value; });

  for (const id of ["#opt-level", "#opt-objective"]) {
    const control = $(id);
    let previous = control.value;
    control.addEventListener("change", async () => {
      if (state.over) { previous = control.value; save(); return; }
      const ok = await ask(state.history.slice(), { keepRow: true });
      if (ok === false) { control.value = previous; save(); } else if (ok) previous = control.value;
    });
    control.addEventListener("restored", () => { previous = control.value; });
  }

  const contrast = $("#opt-contrast");
  function applyContrast(on) {
    document.body.dataset.contrast = on ? "high" : "normal";
    contrast.checked = on;
  }
  try { applyContrast(localStorage.getItem(CONTRAST_STORE) === "high"); } catch (e) { applyContrast(false); }
  contrast.addEventListener("change", () => {
    applyContrast(contrast.checked);
    try { localStorage.setItem(CONTRAST_STORE, contrast.checked ? "high" : "normal"); } catch (e) { /* not kept */ }
  });

  async function start() {
    const snap = kept();
    if (snap && snap.options) {
      for (const [k, v] of Object.entries(snap.options)) {
        const control = $("#opt-" + k);
        if (control && Array.from(control.options).some((o) => o.value === String(v))) {
          control.value = String(v);
          control.dispatchEvent(new Event("restored"));
        }
      }
    }
    if (snap && snap.history.length) {
      const ok = await ask(snap.history);
      if (ok === false) {
        const refused = $("#message").textContent;
        forget();
        await ask([]);
        say(fmt(T.restore_failed, { message: refused }), "error");
      }
      return;
    }
    await ask([]);
  }

  render();
  boardsEl.focus();
  start();
})();
