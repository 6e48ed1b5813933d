/* termo board: the page's only script (no framework, no build step, nothing from outside).
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
 *   #status                          "searching…" while a request runs; data-busy="true"
 *   #game-switcher                   the game select (goes to /{game})
 *   #keyboard .key[data-key]         the on-screen keyboard (Enter, Backspace, symbols)
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
 */
(function () {
  "use strict";

  const cfg = JSON.parse(document.getElementById("board-config").textContent);
  const T = cfg.text;
  const L = cfg.length;
  const CYCLE = ["absent", "present", "correct"];
  const CODE = { empty: "B", absent: "B", present: "Y", correct: "G" };
  const STATE = { B: "absent", Y: "present", G: "correct" };
  const symbols = cfg.symbols ? new Set(Array.from(cfg.symbols)) : null;

  const $ = (sel) => document.querySelector(sel);
  const board = $("#board");
  const state = {
    history: [],          // applied rounds: {guess, pattern}
    typed: [],            // symbols typed in the active row
    colours: [],          // colour of each tile of the active row (empty | absent | present | correct)
    cursor: 0,
    data: null,           // the last answer of /api/suggest (or /api/candidates)
    over: false,          // won or out of tries
    busy: false,          // a request is on its way
    seq: 0,
  };
  resetRow();

  function fmt(template, values) {
    return template.replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));
  }

  function resetRow() {
    state.typed = [];
    state.colours = new Array(L).fill("empty");
    state.cursor = 0;
  }

  function options() {
    const body = {
      game: cfg.game,
      level: Number($("#opt-level").value),
      t: $("#opt-t").value === "inf" ? "inf" : Number($("#opt-t").value),
      hard: $("#opt-hard").checked,
    };
    if ($("#opt-extended")) body.extended = $("#opt-extended").checked;
    if ($("#opt-strict")) body.strict = $("#opt-strict").checked;
    return body;
  }

  function items(history) {
    return history.map((r) => r.guess + ":" + r.pattern);
  }

  // ------------------------------------------------------------------ requests

  async function post(path, body) {
    const response = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    let data = null;
    try {
      data = await response.json();
    } catch (e) {
      data = { detail: response.statusText || String(response.status) };
    }
    let warnings = [];
    const header = response.headers.get("X-Termo-Warnings");
    if (header) {
      try { warnings = JSON.parse(header); } catch (e) { warnings = []; }
    }
    return { ok: response.ok, status: response.status, data, warnings };
  }

  // Ask the server about `history`; returns true when it was accepted (then it becomes the
  // board's history), false when refused (nothing changes; the reason is shown), null when a
  // newer request took over before the answer came (nothing changes, nothing is said).
  async function ask(history) {
    const seq = ++state.seq;
    setBusy(true);
    const last = history.length >= cfg.tries;
    const body = Object.assign(options(), { history: items(history), list: cfg.list });
    if (last) {
      delete body.level;
      delete body.t;
    }
    let answer;
    try {
      answer = await post(last ? "/api/candidates" : "/api/suggest", body);
    } catch (err) {
      if (seq !== state.seq) return null;
      setBusy(false);
      say(fmt(T.server_error, { message: err.message || err }), "error");
      return false;
    }
    if (seq !== state.seq) return null; // a newer request took over
    setBusy(false);
    if (!answer.ok) {
      say(fmt(T.not_applied, { message: answer.data && answer.data.detail ? answer.data.detail : answer.status }),
          "error");
      return false;
    }
    state.history = history;
    state.data = answer.data;
    const won = Boolean(answer.data.solved || answer.data.won);
    state.over = won || last;
    resetRow();
    if (won) {
      const guess = history.length ? history[history.length - 1].guess : answer.data.word;
      say(fmt(T.solved, { n: history.length, tries: cfg.tries, word: guess }), "win");
    } else if (last) {
      say(fmt(T.lost, { words: (answer.data.remaining || []).slice(0, 10).join(", ") }), "error");
    } else if (answer.warnings.length) {
      say(answer.warnings.map((w) => fmt(T.warning, { message: w })).join(" "), "note");
    } else {
      say("", "");
    }
    render();
    document.body.dataset.ready = "true";
    return true;
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
    const word = currentWord();
    if (Array.from(word).length !== L) {
      say(fmt(T.not_applied, { message: cfg.unit === "letters" ?
        `${L} letters are needed` : `${L} symbols are needed` }), "error");
      return;
    }
    const pattern = state.colours.map((c) => CODE[c]).join("");
    const accepted = await ask(state.history.concat([{ guess: word, pattern }]));
    if (accepted) board.focus();
  }

  async function undo() {
    if (!state.history.length) return;
    await ask(state.history.slice(0, -1));
  }

  async function newGame() {
    await ask([]);
  }

  function typeSymbol(ch) {
    if (state.over || state.typed.length >= L) return;
    state.typed.push(ch);
    // a full row: the cursor goes back to the first tile, ready for the colours
    state.cursor = state.typed.length === L ? 0 : state.typed.length;
    render();
  }

  function backspace() {
    if (state.over || !state.typed.length) return;
    state.typed.pop();
    state.cursor = Math.max(0, Math.min(state.typed.length, L - 1));
    render();
  }

  function cycle(col, step) {
    if (state.over) return;
    const current = CYCLE.indexOf(state.colours[col]);
    let next;
    if (current < 0) next = step > 0 ? 0 : CYCLE.length - 1;
    else next = (current + step + CYCLE.length) % CYCLE.length;
    state.colours[col] = CYCLE[next];
    render();
  }

  function setColour(col, name) {
    if (state.over) return;
    state.colours[col] = name;
    state.cursor = Math.min(col + 1, L - 1);
    render();
  }

  // ------------------------------------------------------------------ rendering

  function say(text, kind) {
    const box = $("#message");
    box.textContent = text;
    box.dataset.kind = kind || "";
  }

  function setBusy(busy) {
    state.busy = busy;
    const status = $("#status");
    status.textContent = busy ? T.searching : "";
    status.dataset.busy = busy ? "true" : "false";
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
    for (let r = 0; r < cfg.tries; r++) {
      const row = board.querySelector(`.row[data-row="${r}"]`);
      const content = rowContent(r);
      row.dataset.active = content.active ? "true" : "false";
      for (let c = 0; c < L; c++) {
        const tile = row.querySelector(`.tile[data-col="${c}"]`);
        const letter = content.letters[c] || "";
        const colour = content.states[c] || "empty";
        tile.textContent = letter;
        tile.dataset.letter = letter;
        tile.dataset.state = colour;
        tile.dataset.ghost = content.ghost && letter ? "true" : "false";
        tile.dataset.cursor = content.active && c === state.cursor ? "true" : "false";
        tile.disabled = !content.active;
        tile.setAttribute("aria-label", fmt(T.tile, {
          col: c + 1, row: r + 1, letter: letter || "-", state: colour === "empty" ? T.empty : T[colour],
        }));
      }
    }
    renderPanel();
  }

  function renderPanel() {
    const data = state.data || {};
    const suggestion = $("#suggestion");
    const word = state.over ? "" : (data.word || "");
    suggestion.textContent = word;
    suggestion.dataset.word = word;
    $("#suggestion-flag").textContent = word ? `(${data.is_candidate ? T.can_be_answer : T.cannot_be_answer})` : "";
    $("#suggestion-bits").textContent = word && data.bits != null ? `${T.bits}: ${data.bits.toFixed(4)}` : "";
    $("#suggestion-expected").textContent =
      word && data.expected != null ? `${T.expected}: ${data.expected.toFixed(3)}` : "";
    $("#reason").textContent = state.over && !data.solved ? "" : (data.reason || "");
    $("#candidates-count").textContent = data.candidates != null ? String(data.candidates) : "…";
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
        alt.bits != null ? alt.bits.toFixed(4) : "-",
        alt.expected != null ? alt.expected.toFixed(3) : "-"];
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
    body.closest("section").hidden = body.children.length === 0;  // nothing to compare (an opener, the end)
  }

  function playWord(word) {
    if (state.over) return;
    state.typed = Array.from(word).slice(0, L);
    state.cursor = 0;
    render();
  }

  // ------------------------------------------------------------------ input

  function isSymbol(key) {
    if (Array.from(key).length !== 1) return false;
    if (cfg.unit === "letters") return /\p{L}/u.test(key);
    return symbols ? symbols.has(key) : true;
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
      resetRow();
      render();
    } else if (key === "ArrowLeft" || key === "ArrowRight") {
      if (onButton) return;
      e.preventDefault();
      state.cursor = (state.cursor + (key === "ArrowLeft" ? L - 1 : 1)) % L;
      render();
    } else if (key === " " || key === "ArrowUp" || key === "ArrowDown") {
      if (onButton) return;
      e.preventDefault();
      cycle(state.cursor, key === "ArrowDown" ? -1 : 1);
    } else if (cfg.digit_colours && (key === "1" || key === "2" || key === "3")) {
      e.preventDefault();
      setColour(state.cursor, CYCLE[Number(key) - 1]);
    } else if (isSymbol(key)) {
      if (onButton && tag !== "BUTTON") return;
      e.preventDefault();
      typeSymbol(key.toLowerCase());
    }
  }

  document.addEventListener("keydown", handleKey);
  board.addEventListener("click", (e) => {
    const tile = e.target.closest(".tile");
    if (!tile || tile.disabled) return;
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

  // options: changed mid-game, the same history is asked again; refused -> the option goes back
  for (const id of ["#opt-level", "#opt-t", "#opt-hard", "#opt-extended", "#opt-strict"]) {
    const control = $(id);
    if (!control) continue;
    let previous = control.type === "checkbox" ? control.checked : control.value;
    control.addEventListener("change", async () => {
      const typed = state.typed.slice();
      const colours = state.colours.slice();
      const ok = await ask(state.history.slice());
      if (ok === false) {
        if (control.type === "checkbox") control.checked = previous;
        else control.value = previous;
      } else if (ok) {
        previous = control.type === "checkbox" ? control.checked : control.value;
        state.typed = typed;
        state.colours = colours;
        render();
      }
    });
  }

  render();
  board.focus();
  ask([]);
})();
