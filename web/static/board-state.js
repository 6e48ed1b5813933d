/* termo board, part 1 of 4: the board's state, its storage and its requests (no rendering).
 *
 * One board or several (a mode: Dueto, Quordle, ...): the page's configuration (#board-config)
 * says `boards` (absent: one). Loaded before /static/board.js (and, on a page of several boards,
 * /static/board-layout.js); nothing from outside. It reads the configuration, holds the state (the
 * rounds played, the row being filled, the request on its way), keeps a board per page name
 * (localStorage and the address's #fragment: `save`, `kept`, `forget`) and talks to the server
 * (`post`: the JSON answer, with the warnings of X-Termo-Warnings in the board's language). It
 * hands all of it to board.js as `window.termoBoard`; board.js renders the boards and takes the
 * input (its header lists the page's stable hooks and the keys).
 *
 * A round is {guess, pattern}: `pattern` is the history item's colours, one pattern per board
 * joined by "/" ("BYBBB", or "BBBBB/-/GYBBG" with "-" for a board solved before), so a round
 * travels as guess:pattern in every request (POST /api/suggest, /api/candidates with `game` = the
 * page's name); the server keeps nothing.
 *
 * Rules that keep the board honest (board.js renders them):
 *   - colours belong to the word they were set on: when the word under them changes (a new
 *     suggestion after an option change, typing over the ghost), they are cleared, on every board;
 *   - a row nobody has touched (no colour set, nothing typed) cannot be registered, so a double
 *     click or a double Enter never registers the next suggestion as all grey;
 *   - while a request runs the active row is locked; Undo then takes back only the round being
 *     searched (the request is dropped), never the round before it;
 *   - the board (history, options, the row being filled) is kept per page in localStorage and in
 *     the address's #fragment (a position can be shared); it is restored on load; New game clears it.
 */
(function () {
  "use strict";

  const cfg = JSON.parse(document.getElementById("board-config").textContent);
  const T = cfg.text;
  const L = cfg.length;
  const B = cfg.boards || 1;
  const LANG = cfg.language;
  const CYCLE = ["absent", "present", "correct"];
  const CODE = { empty: "B", absent: "B", present: "Y", correct: "G" };
  const STATE = { B: "absent", Y: "present", G: "correct" };
  const RANK = { empty: 0, absent: 1, present: 2, correct: 3 };
  const WIN = "G".repeat(L);
  const alphabet = new Set(Array.from(cfg.alphabet || cfg.symbols || ""));
  const STORE = "termo-board:v1:" + cfg.game;  // this page's board
  const OLD_STORE = "termo-modes:v1:" + cfg.game;  // where a mode's board was kept before (read once)
  const CHOICE_STORE = "termo-board:";  // + a display choice's name (contrast, theme): one for every board
  const SLOW_MS = 1000;  // a request running longer than this: the note about the first run
  // the paths of the API: one per resource, the board's name in `game` (a game or a mode)
  const SUGGEST = "/api/suggest";
  const CANDIDATES = "/api/candidates";

  const $ = (sel) => document.querySelector(sel);
  const board = $("#board");
  const state = {
    history: [],          // applied rounds: {guess, pattern}
    typed: [],            // symbols typed in the active row (one guess for every board)
    colours: [],          // per board, the colour of each tile of the active row (empty | absent | present | correct)
    colourWord: null,     // the word the colours were set on (they belong to it)
    cursor: { board: 0, col: 0 },
    data: null,           // the last answer of /api/suggest (or /api/candidates)
    over: false,          // won or out of tries
    busy: false,          // a request is on its way
    pending: null,        // that request: {history, round} (round: it registers a new round)
    controller: null,     // its AbortController
    seq: 0,
    since: 0,             // when it started (ms)
    ticker: null,         // the elapsed-time timer
    warming: false,       // /api/health said the server is still warming up
  };

  function fmt(template, values) {
    return template.replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));
  }

  const numbers = {};
  function num(x, digits) {  // decimals in the game's language (pt and ru: a comma)
    if (!(digits in numbers)) {
      numbers[digits] = new Intl.NumberFormat(cfg.locale || "en",
        { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false });
    }
    return numbers[digits].format(x);
  }

  // a message of the server in the board's language: messages[lang], else the English line
  function localised(messages, fallback) {
    return messages && typeof messages[LANG] === "string" && messages[LANG] ? messages[LANG] : fallback;
  }

  // each board's pattern in a round (null: the board was solved before it)
  function patterns(round) {
    const parts = String(round.pattern).split("/");
    return Array.from({ length: B }, (_, b) => (parts[b] === undefined || parts[b] === "-" ? null : parts[b]));
  }

  // the turn (1-based) on which each board was solved in `history`, null while unsolved
  function solvedOn(history) {
    const out = new Array(B).fill(null);
    history.forEach((round, i) => {
      patterns(round).forEach((p, b) => { if (out[b] === null && p === WIN) out[b] = i + 1; });
    });
    return out;
  }

  function unsolved(history) {
    return solvedOn(history).map((s, b) => (s === null ? b : -1)).filter((b) => b >= 0);
  }

  function resetRow() {
    state.typed = [];
    state.colours = Array.from({ length: B }, () => new Array(L).fill("empty"));
    state.colourWord = null;
    const open = unsolved(state.history);
    state.cursor = { board: open.length ? open[0] : 0, col: 0 };
  }
  resetRow();

  function touched() {
    const open = new Set(unsolved(state.history));
    return state.typed.length > 0 || state.colours.some((row, b) => open.has(b) && row.some((c) => c !== "empty"));
  }

  const OPTION_IDS = ["#opt-level", "#opt-t", "#opt-hard", "#opt-extended", "#opt-strict", "#opt-objective"];
  const FLAGS = ["hard", "extended", "strict"];

  // the request's options: the page's controls (a page shows only the options its solvers take)
  function options() {
    const body = { game: cfg.game, level: Number($("#opt-level").value) };
    if ($("#opt-hard")) body.hard = $("#opt-hard").checked;
    if ($("#opt-t")) body.t = $("#opt-t").value === "inf" ? "inf" : Number($("#opt-t").value);
    if ($("#opt-extended")) body.extended = $("#opt-extended").checked;
    if ($("#opt-strict")) body.strict = $("#opt-strict").checked;
    if ($("#opt-objective")) body.objective = $("#opt-objective").value;
    return body;
  }

  function controlValue(control) {
    return control.type === "checkbox" ? control.checked : control.value;
  }

  function setControl(control, value) {
    if (control.type === "checkbox") control.checked = Boolean(value);
    else if (Array.from(control.options).some((o) => o.value === String(value))) control.value = String(value);
  }

  function items(history) {
    return history.map((r) => r.guess + ":" + r.pattern);
  }

  // a symbol folded onto the game's alphabet (NFKC: fullwidth forms; an accented letter onto its
  // base letter where the game has no such letter), or null
  function fold(ch) {
    const lower = ch.normalize("NFKC").toLowerCase();
    if (alphabet.has(lower)) return lower;
    const base = lower.normalize("NFD").replace(/\p{M}/gu, "");
    return Array.from(base).length === 1 && alphabet.has(base) ? base : null;
  }

  // per board, what the registered rounds showed of each symbol: the best of correct > present > absent
  function keyStates(history) {
    const out = Array.from({ length: B }, () => ({}));
    for (const round of history) {
      const symbols = Array.from(round.guess).map((ch) => fold(ch) || ch);
      patterns(round).forEach((pattern, b) => {
        if (pattern === null) return;
        Array.from(pattern).forEach((code, i) => {
          const s = STATE[code] || "absent";
          const ch = symbols[i];
          if (ch && RANK[s] > RANK[out[b][ch] || "empty"]) out[b][ch] = s;
        });
      });
    }
    return out;
  }

  // ------------------------------------------------------------------ the row being filled

  function open() { return unsolved(state.history); }

  function currentWord() {
    if (state.typed.length) return state.typed.join("");
    return state.data && state.data.word && !state.over ? state.data.word : "";
  }

  // colours belong to the word they describe: the word under them changed -> they go (every board)
  function guardColours() {
    if (state.colourWord !== null && currentWord() !== state.colourWord) {
      state.colours = Array.from({ length: B }, () => new Array(L).fill("empty"));
      state.colourWord = null;
    }
  }

  function outcome() {
    if (!state.over) return "";
    const data = state.data || {};
    const won = data.solved || data.won;
    if (B > 1) {
      if (won) return fmt(T.won, { n: state.history.length, tries: cfg.tries });
      const boards = (data.boards || []).filter((b) => !b.solved)
        .map((b) => fmt(T.lost_board, { n: b.board, words: (b.sample || []).slice(0, 3).join(", ") }));
      return fmt(T.lost_boards, { boards: boards.join("; ") });
    }
    if (won) {
      const guess = state.history.length ? state.history[state.history.length - 1].guess : data.word;
      return fmt(T.solved, { n: state.history.length, tries: cfg.tries, word: guess });
    }
    return fmt(cfg.uniform_prior ? T.lost_uniform : T.lost, { words: (data.remaining || []).slice(0, 10).join(", ") });
  }

  // the cursor moves over the tiles of the unsolved boards, in board order: `wrap` (the arrows)
  // goes round, otherwise (after a colour is set) it stops on the last tile
  function move(step, wrap) {
    const spots = open().flatMap((b) => Array.from({ length: L }, (_, c) => [b, c]));
    if (!spots.length) return;
    let at = spots.findIndex(([b, c]) => b === state.cursor.board && c === state.cursor.col);
    if (at < 0) at = 0;
    at = wrap ? (at + step + spots.length) % spots.length : Math.max(0, Math.min(at + step, spots.length - 1));
    state.cursor = { board: spots[at][0], col: spots[at][1] };
  }

  function colour(b, col, name) {
    state.colours[b][col] = name;
    state.colourWord = currentWord();
    state.cursor = { board: b, col };
  }

  // what tile j of row r of board b shows: {letter, state, ghost, active}
  function tileContent(b, r, c, solved, word, ghost) {
    if (r < state.history.length) {
      const pattern = patterns(state.history[r])[b];
      if (pattern === null) return { letter: "", state: "empty", ghost: false, active: false };
      return { letter: Array.from(state.history[r].guess)[c] || "", state: STATE[pattern[c]] || "absent",
        ghost: false, active: false };
    }
    const active = r === state.history.length && !state.over && solved[b] === null;
    if (!active) return { letter: "", state: "empty", ghost: false, active: false };
    const letter = Array.from(word)[c] || "";
    return { letter, state: state.colours[b][c] || "empty", ghost: ghost && Boolean(letter), active: true };
  }


  // ------------------------------------------------------------------ kept boards

  function snapshot() {
    const opts = {};
    for (const id of OPTION_IDS) { const c = $(id); if (c) opts[id.slice(5)] = controlValue(c); }
    const row = touched() ? { typed: state.typed.join(""), colours: B === 1 ? state.colours[0].slice()
      : state.colours.map((r) => r.slice()), word: state.colourWord } : null;
    return { history: state.history, options: opts, row };
  }

  function save() {
    const snap = snapshot();
    try { localStorage.setItem(STORE, JSON.stringify(snap)); } catch (e) { /* private mode, full */ }
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(snap.options)) params.set(k, v === true ? "1" : v === false ? "0" : String(v));
    if (snap.history.length) params.set("h", items(snap.history).join(","));
    try { window.history.replaceState(null, "", "#" + params.toString()); } catch (e) { /* file: */ }
  }

  function forget() {
    try { localStorage.removeItem(STORE); localStorage.removeItem(OLD_STORE); } catch (e) { /* nothing kept */ }
  }

  // the kept board: the address's #fragment (a shared position) first, else localStorage (also
  // when the fragment is the stored board's own: then with the row being filled)
  function kept() {
    const stored = keptHere();
    const shared = keptInAddress();
    if (!shared) return stored;
    const same = (a, b) => JSON.stringify(items(a.history)) === JSON.stringify(items(b.history)) &&
      Object.entries(a.options).every(([k, v]) => String(b.options[k]) === String(v));
    return stored && same(shared, stored) ? stored : shared;
  }

  function keptInAddress() {
    const hash = window.location.hash.replace(/^#/, "");
    if (hash) {
      const params = new URLSearchParams(hash);
      if (params.has("h") || params.has("level")) {
        const opts = {};
        for (const id of OPTION_IDS) {
          const k = id.slice(5);
          if (params.has(k)) opts[k] = FLAGS.includes(k) ? params.get(k) === "1" : params.get(k);
        }
        const history = (params.get("h") || "").split(",").filter(Boolean).map((item) => {
          const at = item.lastIndexOf(":");
          return { guess: item.slice(0, at), pattern: item.slice(at + 1) };
        });
        return { history, options: opts, row: null };
      }
    }
    return null;
  }

  function keptHere() {
    try {
      const text = localStorage.getItem(STORE);
      const snap = text ? JSON.parse(text) : null;
      if (snap && Array.isArray(snap.history)) return snap;
      // a mode's board kept before one board and several shared this store: rounds {guess, patterns}
      const old = B > 1 ? JSON.parse(localStorage.getItem(OLD_STORE) || "null") : null;
      if (old && Array.isArray(old.history) && old.history.every((r) => r && Array.isArray(r.patterns))) {
        const history = old.history.map((r) => ({ guess: r.guess, pattern: r.patterns.map((p) => p || "-").join("/") }));
        return { history, options: old.options || {}, row: null };
      }
    } catch (e) { /* unreadable: start afresh */ }
    return null;
  }

  // the kept options set on the page's controls (each told "restored": its change handler's
  // previous value)
  function restoreOptions(snap) {
    if (!snap || !snap.options) return;
    for (const id of OPTION_IDS) {
      const control = $(id);
      const k = id.slice(5);
      if (control && k in snap.options) {
        setControl(control, snap.options[k]);
        control.dispatchEvent(new Event("restored"));
      }
    }
  }

  // the kept row being filled (one board: its colours; several: one list per board)
  function restoreRow(row) {
    state.typed = Array.from(row.typed || "").slice(0, L);
    const colours = B > 1 ? row.colours : [row.colours];
    if (Array.isArray(colours) && colours.length === B && colours.every((r) => Array.isArray(r) && r.length === L)) {
      state.colours = colours.map((r) => r.map((c) => (c in CODE ? c : "empty")));
      state.colourWord = typeof row.word === "string" ? row.word : currentWord();
    }
  }

  // a display choice kept for every board (null: none kept)
  function keptChoice(name) {
    try { return localStorage.getItem(CHOICE_STORE + name); } catch (e) { return null; }
  }

  function keepChoice(name, value) {
    try { localStorage.setItem(CHOICE_STORE + name, value); } catch (e) { /* not kept */ }
  }

  // ------------------------------------------------------------------ requests

  // whether the server says it is still warming up (GET /api/health: "ready": false)
  async function warming() {
    try {
      const answer = await (await fetch("/api/health")).json();
      return Boolean(answer && answer.ready === false);
    } catch (e) {
      return false;
    }
  }

  async function post(path, body, signal) {
    const response = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      signal,
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
    const translated = data && Array.isArray(data.warning_messages) ? data.warning_messages : [];
    warnings = warnings.map((w, i) => localised(translated[i], w));
    return { ok: response.ok, status: response.status, data, warnings };
  }

  window.termoBoard = {
    cfg, T, L, B, LANG, CYCLE, CODE, STATE, RANK, WIN, alphabet, SLOW_MS, SUGGEST, CANDIDATES,
    $, board, state, fmt, num, localised, patterns, solvedOn, unsolved, resetRow, touched, options, OPTION_IDS,
    controlValue, setControl, items, fold, keyStates, open, currentWord, guardColours, outcome, move, colour,
    tileContent, save, forget, kept, restoreOptions, restoreRow, keptChoice, keepChoice, post, warming,
  };
})();
