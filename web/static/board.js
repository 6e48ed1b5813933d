/* termo board, part 2 of 2: rendering and input (board-state.js, loaded first, holds the state,
 * its storage and the requests; no framework, no build step, nothing from outside).
 *
 * The board is the input. The active row shows the suggestion ghosted; type another guess over
 * it or keep it, set each tile's colour (click: absent -> present -> correct -> absent; an
 * uncoloured tile counts as absent), register the round. The history lives here and travels in
 * every request (POST /api/suggest); the server keeps nothing. A round the server refuses (an
 * impossible pattern, no candidate left, a hard-mode violation) is explained and not applied.
 *
 * Stable hooks (used by the browser tests; keep them):
 *   #board[data-game]                the board; focusable (tabindex 0), takes the keys
 *   .row[data-row=i]                 row i (0-based); the active row has data-active="true"
 *   .tile[data-row=i][data-col=j]    tile j of row i; data-letter (its letter), data-state
 *                                    (empty | absent | present | correct: its colour; empty =
 *                                    not coloured), data-ghost="true" while it shows the
 *                                    suggestion, data-cursor="true" on the keyboard's tile
 *   #register #undo #new-game        the buttons
 *   #suggestion[data-word]           the suggested guess; #suggestion-flag, #suggestion-bits,
 *                                    #suggestion-expected, #reason
 *   #candidates-count                the number of candidates left; #candidates-list (li items)
 *   #alternatives tbody tr[data-word] the alternatives (word, bits, expected); click: play it
 *   #opt-level #opt-t #opt-hard #opt-extended (Termo) #opt-strict (Nerdle)   the options
 *   #message                         why a round was not applied, a win, a loss (role=alert)
 *   #status                          "searching… 3 s" while a request runs; data-busy="true"
 *   .row[data-busy="true"]           the active row while its request runs (locked: no typing,
 *                                    no colouring); body[data-busy="true"] likewise
 *   #suggestion-section[data-stale]  "true" while the shown suggestion is being replaced
 *   #notice                          the one note that the first run prepares the search kernels
 *                                    (shown while /api/health says warming, or a request is slow)
 *   #compact                         the phone's one line above the board (word, flag, candidates)
 *   #outcome                         the result in the panel once the game is over
 *   #alternatives-note               why there are no alternatives (a move from the stored strategy)
 *   #opt-contrast                    the high-contrast palette; body[data-contrast="high"]
 *   #game-switcher                   the game select (goes to /{game})
 *   #keyboard .key[data-key]         the on-screen keyboard (Enter, Backspace, symbols); a symbol's
 *                                    data-state: what the registered rounds showed of it, the best
 *                                    of correct > present > absent (empty: not played)
 *   body[data-ready="true"]          set once the first suggestion has arrived
 *
 * Keys (on the board or anywhere outside a form field):
 *   a symbol of the game             types it into the active row (over the ghost)
 *   Backspace                        deletes the last typed symbol
 *   Escape                           back to the suggestion (typed symbols and colours cleared)
 *   ArrowLeft / ArrowRight           chooses a tile (the cursor)
 *   Space / ArrowUp                  next colour of the cursor's tile; ArrowDown: previous colour
 *   1 / 2 / 3 (letter games only)    absent / present / correct on the cursor's tile, cursor moves on
 *   Enter                            registers the round; Ctrl+Z (or Cmd+Z) undoes the last round
 *
 * Rules that keep the board honest:
 *   - colours belong to the word they were set on: when the word under them changes (a new
 *     suggestion after an option change, typing over the ghost), they are cleared;
 *   - a row nobody has touched (no colour set, nothing typed) cannot be registered, so a double
 *     click or a double Enter never registers the next suggestion as all grey;
 *   - while a request runs the active row is locked; Undo then takes back only the round being
 *     searched (the request is dropped), never the round before it;
 *   - the board (history, options, the row being filled) is kept per game in localStorage and in
 *     the address's #fragment (a position can be shared); it is restored on load; New game clears it.
 */
(function () {
  "use strict";

  const { cfg, T, L, LANG, CYCLE, CODE, STATE, RANK, alphabet, CONTRAST_STORE, SLOW_MS, $, board, state, fmt,
    num, localised, resetRow, touched, options, OPTION_IDS, controlValue, setControl, items, save, forget,
    kept, post } = window.termoBoard;  // board-state.js

  // colours belong to the word they describe: the word under them changed -> they go
  function guardColours() {
    if (state.colourWord !== null && currentWord() !== state.colourWord) {
      state.colours = new Array(L).fill("empty");
      state.colourWord = null;
    }
  }

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
    const body = Object.assign(options(), { history: items(history), list: cfg.list });
    if (last) {
      delete body.level;
      delete body.t;
    }
    let answer;
    try {
      answer = await post(last ? "/api/candidates" : "/api/suggest", body, controller ? controller.signal : undefined);
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
    document.body.dataset.ready = "true";
    return true;
  }

  // drop the request on its way (its answer, when it comes, is ignored)
  function cancel() {
    state.seq++;
    if (state.controller) state.controller.abort();
    state.controller = null;
    setBusy(false);
  }

  function outcome() {
    if (!state.over) return "";
    const data = state.data || {};
    if (data.solved || data.won) {
      const guess = state.history.length ? state.history[state.history.length - 1].guess : data.word;
      return fmt(T.solved, { n: state.history.length, tries: cfg.tries, word: guess });
    }
    return fmt(cfg.uniform_prior ? T.lost_uniform : T.lost, { words: (data.remaining || []).slice(0, 10).join(", ") });
  }

  // ------------------------------------------------------------------ actions

  function currentWord() {
    if (state.typed.length) return state.typed.join("");
    return state.data && state.data.word && !state.over ? state.data.word : "";
  }

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
    const pattern = state.colours.map((c) => CODE[c]).join("");
    const accepted = await ask(state.history.concat([{ guess: word, pattern }]), { round: true });
    if (accepted) board.focus();
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

  // the symbol a key stands for in this game (NFKC: fullwidth forms; an accented Latin letter
  // folded onto its base letter where the game has no such letter), or null with the reason said
  function symbolOf(key) {
    let ch = key.normalize("NFKC").toLowerCase();
    if (alphabet.has(ch)) return ch;
    const base = ch.normalize("NFD").replace(/\p{M}/gu, "");
    if (Array.from(base).length === 1 && alphabet.has(base)) return base;
    say(fmt(cfg.unit === "letters" ? T.not_in_alphabet : T.not_a_symbol, { ch: key }), "error");
    return null;
  }

  function typeSymbol(key) {
    if (state.over || state.busy || state.typed.length >= L) return;
    const ch = symbolOf(key);
    if (ch === null) return;
    if (document.querySelector("#message").dataset.kind === "error") say("", "");
    state.typed.push(ch);
    // a full row: the cursor goes back to the first tile, ready for the colours
    state.cursor = state.typed.length === L ? 0 : state.typed.length;
    render();
  }

  function backspace() {
    if (state.over || state.busy || !state.typed.length) return;
    state.typed.pop();
    state.cursor = Math.max(0, Math.min(state.typed.length, L - 1));
    render();
  }

  function colour(col, name) {
    state.colours[col] = name;
    state.colourWord = currentWord();
  }

  function cycle(col, step) {
    if (state.over || state.busy) return;
    const current = CYCLE.indexOf(state.colours[col]);
    let next;
    if (current < 0) next = step > 0 ? 0 : CYCLE.length - 1;
    else next = (current + step + CYCLE.length) % CYCLE.length;
    colour(col, CYCLE[next]);
    render();
  }

  function setColour(col, name) {
    if (state.over || state.busy) return;
    colour(col, name);
    state.cursor = Math.min(col + 1, L - 1);
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
    if (box) box.hidden = !show;
  }

  function rowContent(r) {
    const active = r === state.history.length && !state.over;
    if (r < state.history.length) {
      const round = state.history[r];
      const letters = Array.from(round.guess);
      return { active, letters, states: Array.from(round.pattern).map((c) => STATE[c] || "absent"), ghost: false };
    }
    if (active) {
      const ghost = state.typed.length === 0;
      const word = ghost ? (state.data && state.data.word ? state.data.word : "") : state.typed.join("");
      return { active, letters: Array.from(word), states: state.colours.slice(), ghost };
    }
    return { active: false, letters: [], states: new Array(L).fill("empty"), ghost: false };
  }

  function render() {
    guardColours();
    for (let r = 0; r < cfg.tries; r++) {
      const row = board.querySelector(`.row[data-row="${r}"]`);
      const content = rowContent(r);
      row.dataset.active = content.active ? "true" : "false";
      row.dataset.busy = content.active && state.busy ? "true" : "false";
      for (let c = 0; c < L; c++) {
        const tile = row.querySelector(`.tile[data-col="${c}"]`);
        const letter = content.letters[c] || "";
        const colourName = content.states[c] || "empty";
        tile.textContent = letter;
        tile.dataset.letter = letter;
        tile.dataset.state = colourName;
        tile.dataset.ghost = content.ghost && letter ? "true" : "false";
        tile.dataset.cursor = content.active && !state.busy && c === state.cursor ? "true" : "false";
        tile.disabled = !content.active || state.busy;
        tile.setAttribute("aria-label", fmt(T.tile, {
          col: c + 1, row: r + 1, letter: letter || "-", state: colourName === "empty" ? T.empty : T[colourName],
        }));
      }
    }
    renderKeyboard();
    renderPanel();
    const registerButton = $("#register");
    registerButton.disabled = state.over || state.busy || !touched();
    // the tooltip says what to do where the row is what keeps it off
    if (!state.over && !state.busy && !touched()) registerButton.title = T.touch_first;
    else registerButton.removeAttribute("title");
  }

  // what the registered rounds showed of each symbol: the best state wins
  function renderKeyboard() {
    const known = new Map();
    for (const round of state.history) {
      const letters = Array.from(round.guess);
      Array.from(round.pattern).forEach((code, i) => {
        const name = STATE[code] || "absent";
        const ch = letters[i];
        if (!known.has(ch) || RANK[name] > RANK[known.get(ch)]) known.set(ch, name);
      });
    }
    for (const key of document.querySelectorAll("#keyboard .key")) {
      const k = key.dataset.key;
      if (k === "Enter" || k === "Backspace") continue;
      const name = known.get(k) || "empty";
      key.dataset.state = name;
      key.setAttribute("aria-label", name === "empty" ? k : `${k}: ${T[name]}`);
    }
  }

  function renderPanel() {
    const data = state.data || {};
    const suggestion = $("#suggestion");
    const word = state.over ? "" : (data.word || "");
    suggestion.textContent = word;
    suggestion.dataset.word = word;
    $("#suggestion-section").dataset.stale = state.busy ? "true" : "false";
    const flag = word ? (data.is_candidate ? T.can_be_answer : T.cannot_be_answer) : "";
    $("#suggestion-flag").textContent = word ? `(${flag})` : "";
    $("#suggestion-bits").textContent = word && data.bits != null ? `${T.bits}: ${num(data.bits, 4)}` : "";
    $("#suggestion-expected").textContent =
      word && data.expected != null ? `${T.expected}: ${num(data.expected, 3)}` : "";
    $("#reason").textContent = state.over ? "" : localised(data.reason_messages, data.reason || "");
    $("#reason-title").hidden = !$("#reason").textContent;
    const result = $("#outcome");
    result.textContent = outcome();
    result.hidden = !state.over;
    result.dataset.kind = state.over ? (data.solved || data.won ? "win" : "lost") : "";
    $("#candidates-count").textContent = data.candidates != null ? String(data.candidates) : "…";
    const compact = $("#compact");
    compact.textContent = state.over ? outcome() : word ? fmt(T.compact, {
      word: cfg.unit === "letters" ? word.toUpperCase() : word, flag, label: T.candidates,
      n: data.candidates != null ? data.candidates : "…",
    }) : "";
    const list = $("#candidates-list");
    list.replaceChildren(...(data.remaining || []).map((w) => {
      const li = document.createElement("li");
      li.textContent = w;
      return li;
    }));
    const body = $("#alternatives tbody");
    body.replaceChildren(...(state.over ? [] : data.alternatives || []).map((alt) => {
      const tr = document.createElement("tr");
      tr.dataset.word = alt.word;
      tr.tabIndex = 0;
      const cells = [alt.word + (alt.is_candidate ? " *" : ""),
        alt.bits != null ? num(alt.bits, 4) : "-",
        alt.expected != null ? num(alt.expected, 3) : "-"];
      for (const text of cells) {
        const td = document.createElement("td");
        td.textContent = text;
        tr.appendChild(td);
      }
      const play = () => { playWord(alt.word); };
      tr.addEventListener("click", play);
      tr.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); play(); board.focus(); } });
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
    state.cursor = 0;
    render();
  }

  // ------------------------------------------------------------------ input

  function isSymbolKey(key) {
    if (Array.from(key).length !== 1) return false;
    if (cfg.unit === "letters") return /\p{L}/u.test(key);
    return /\S/u.test(key);
  }

  function handleKey(e) {
    const target = e.target;
    const tag = target && target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    const onButton = tag === "BUTTON" && !target.classList.contains("tile") || tag === "TR" || tag === "A" ||
      tag === "SUMMARY";
    const key = e.key;
    if ((e.ctrlKey || e.metaKey) && (key === "z" || key === "Z")) {
      e.preventDefault();
      undo();
      return;
    }
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
      state.cursor = (state.cursor + (key === "ArrowLeft" ? L - 1 : 1)) % L;
      render();
    } else if (key === " " || key === "ArrowUp" || key === "ArrowDown") {
      if (onButton) return;
      e.preventDefault();
      cycle(state.cursor, key === "ArrowDown" ? -1 : 1);
    } else if (cfg.digit_colours && (key === "1" || key === "2" || key === "3")) {
      e.preventDefault();
      setColour(state.cursor, CYCLE[Number(key) - 1]);
    } else if (isSymbolKey(key)) {
      if (onButton && tag !== "BUTTON") return;
      e.preventDefault();
      typeSymbol(key);
    }
  }

  document.addEventListener("keydown", handleKey);
  board.addEventListener("click", (e) => {
    const tile = e.target.closest(".tile");
    if (!tile || tile.disabled || state.busy) return;
    const col = Number(tile.dataset.col);
    state.cursor = col;
    cycle(col, 1);
    board.focus();
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
  $("#undo").addEventListener("click", () => { undo().then(() => board.focus()); });
  $("#new-game").addEventListener("click", () => { newGame().then(() => board.focus()); });
  $("#game-switcher").addEventListener("change", (e) => { window.location.href = "/" + e.target.value; });

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
  try { applyContrast(localStorage.getItem(CONTRAST_STORE) === "high"); } catch (e) { applyContrast(false); }
  contrast.addEventListener("change", () => {
    applyContrast(contrast.checked);
    try { localStorage.setItem(CONTRAST_STORE, contrast.checked ? "high" : "normal"); } catch (e) { /* not kept */ }
  });

  // the server warming up (a fresh install: kernels, matrices): say so until it is ready
  async function watchHealth() {
    let answer = null;
    try {
      const response = await fetch("/api/health");
      answer = await response.json();
    } catch (e) {
      answer = null;
    }
    state.warming = Boolean(answer && answer.ready === false);
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
    if (snap && snap.options) {
      for (const id of OPTION_IDS) {
        const control = $(id);
        const k = id.slice(5);
        if (control && k in snap.options) {
          setControl(control, snap.options[k]);
          control.dispatchEvent(new Event("restored"));
        }
      }
    }
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
      state.typed = Array.from(snap.row.typed || "").slice(0, L);
      if (Array.isArray(snap.row.colours) && snap.row.colours.length === L) {
        state.colours = snap.row.colours.map((c) => (c in CODE ? c : "empty"));
        state.colourWord = typeof snap.row.word === "string" ? snap.row.word : currentWord();
      }
      render();
    }
  }

  // the row being filled is kept too (a discarded tab comes back as it was)
  board.addEventListener("click", () => { if (!state.busy) save(); });
  document.addEventListener("keyup", () => { if (!state.busy && document.body.dataset.ready === "true") save(); });

  render();
  board.focus();
  watchHealth();
  start();
})();
