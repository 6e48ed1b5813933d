/* termo mode board (several boards at once), part 1 of 2: the state, its storage and the
 * requests (no rendering). Loaded before /static/modes.js, which renders and takes the input.
 *
 * The page's configuration is #mode-config (mode, boards, length, tries, keyboard, text). The
 * history is a list of rounds {guess, patterns}: one pattern per board ("BYBGB"), null for a
 * board solved on an earlier round; it travels in every request as guess:p1/p2/.../pB with "-"
 * for a solved board (POST /api/mode/suggest, /api/mode/boards); the server keeps nothing. The
 * board is kept per mode in localStorage and restored on load; New game clears it.
 */
(function () {
  "use strict";

  const cfg = JSON.parse(document.getElementById("mode-config").textContent);
  const T = cfg.text;
  const L = cfg.length;
  const B = cfg.boards;
  const LANG = cfg.language;
  const CYCLE = ["absent", "present", "correct"];
  const CODE = { empty: "B", absent: "B", present: "Y", correct: "G" };
  const STATE = { B: "absent", Y: "present", G: "correct" };
  const RANK = { empty: 0, absent: 1, present: 2, correct: 3 };
  const WIN = "G".repeat(L);
  const alphabet = new Set(Array.from(cfg.alphabet || ""));
  const STORE = "termo-modes:v1:" + cfg.mode;
  const CONTRAST_STORE = "termo-board:contrast";  // one choice for every board
  const SLOW_MS = 1000;

  const $ = (sel) => document.querySelector(sel);
  const state = {
    history: [],     // rounds: {guess, patterns: [pattern | null per board]}
    typed: [],       // symbols typed in the active row (shared by the boards)
    colours: [],     // per board, the colour of each tile of the active row
    colourWord: null, // the word the colours were set on
    cursor: { board: 0, col: 0 },
    data: null,      // the last answer (/api/mode/suggest or /api/mode/boards)
    over: false,
    busy: false,
    pending: null,   // the request on its way: {history, round}
    controller: null,
    seq: 0,
    since: 0,
    ticker: null,
  };

  function fmt(template, values) {
    return template.replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));
  }

  const numbers = {};
  function num(x, digits) {
    if (!(digits in numbers)) {
      numbers[digits] = new Intl.NumberFormat(cfg.locale || "en",
        { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false });
    }
    return numbers[digits].format(x);
  }

  function localised(messages, fallback) {
    return messages && typeof messages[LANG] === "string" && messages[LANG] ? messages[LANG] : fallback;
  }

  // the turn (1-based) on which each board was solved in `history`, null while unsolved
  function solvedOn(history) {
    const out = new Array(B).fill(null);
    history.forEach((round, i) => {
      round.patterns.forEach((p, b) => { if (out[b] === null && p === WIN) out[b] = i + 1; });
    });
    return out;
  }

  function unsolved(history) {
    const solved = solvedOn(history);
    return solved.map((s, b) => (s === null ? b : -1)).filter((b) => b >= 0);
  }

  function resetRow() {
    state.typed = [];
    state.colours = Array.from({ length: B }, () => new Array(L).fill("empty"));
    state.colourWord = null;
    const open = unsolved(state.history);
    state.cursor = { board: open.length ? open[0] : 0, col: 0 };
  }

  function touched() {
    const open = new Set(unsolved(state.history));
    return state.typed.length > 0 || state.colours.some((row, b) => open.has(b) && row.some((c) => c !== "empty"));
  }

  function options() {
    return { mode: cfg.mode, level: Number($("#opt-level").value), objective: $("#opt-objective").value };
  }

  function item(round) {
    return round.guess + ":" + round.patterns.map((p) => (p === null ? "-" : p)).join("/");
  }

  function items(history) {
    return history.map(item);
  }

  // a symbol folded onto the game's alphabet (NFKC; an accented letter onto its base letter)
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
      round.patterns.forEach((pattern, b) => {
        if (pattern === null) return;
        Array.from(pattern).forEach((code, i) => {
          const s = STATE[code];
          const ch = symbols[i];
          if (s && ch && RANK[s] > RANK[out[b][ch] || "empty"]) out[b][ch] = s;
        });
      });
    }
    return out;
  }

  // ------------------------------------------------------------------ kept boards

  function save() {
    const opts = { level: $("#opt-level").value, objective: $("#opt-objective").value };
    try { localStorage.setItem(STORE, JSON.stringify({ history: state.history, options: opts })); } catch (e) { /* private mode */ }
  }

  function forget() {
    try { localStorage.removeItem(STORE); } catch (e) { /* nothing kept */ }
  }

  function valid(round) {
    return round && typeof round.guess === "string" && Array.isArray(round.patterns) && round.patterns.length === B &&
      round.patterns.every((p) => p === null || typeof p === "string");
  }

  function kept() {
    try {
      const snap = JSON.parse(localStorage.getItem(STORE) || "null");
      if (snap && Array.isArray(snap.history) && snap.history.every(valid)) return snap;
    } catch (e) { /* unreadable: start afresh */ }
    return null;
  }

  // ------------------------------------------------------------------ requests

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
    return { ok: response.ok, status: response.status, data };
  }

  window.termoModes = {
    cfg, T, L, B, LANG, CYCLE, CODE, STATE, RANK, WIN, CONTRAST_STORE, SLOW_MS, $, state,
    fmt, num, localised, solvedOn, unsolved, resetRow, touched, options, items, fold, keyStates,
    save, forget, kept, post,
  };
})();
