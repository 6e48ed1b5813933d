/* termo board, part 1 of 2: the board's state, its storage and its requests (no rendering).
 *
 * Loaded before /static/board.js (the page loads both; nothing from outside). It reads the
 * page's configuration (#board-config), holds the board's state (the rounds played, the row
 * being filled, the request on its way), keeps a board per game (localStorage and the address's
 * #fragment: `save`, `kept`, `forget`) and talks to the server (`post`: the JSON answer, with
 * the warnings of X-Termo-Warnings in the board's language). It hands all of it to board.js as
 * `window.termoBoard`; board.js renders the board and takes the input (its header lists the
 * page's stable hooks and the keys).
 */
(function () {
  "use strict";

  const cfg = JSON.parse(document.getElementById("board-config").textContent);
  const T = cfg.text;
  const L = cfg.length;
  const LANG = cfg.language;
  const CYCLE = ["absent", "present", "correct"];
  const CODE = { empty: "B", absent: "B", present: "Y", correct: "G" };
  const STATE = { B: "absent", Y: "present", G: "correct" };
  const RANK = { empty: 0, absent: 1, present: 2, correct: 3 };
  const alphabet = new Set(Array.from(cfg.alphabet || cfg.symbols || ""));
  const STORE = "termo-board:v1:" + cfg.game;  // this game's board
  const CONTRAST_STORE = "termo-board:contrast";
  const SLOW_MS = 1000;  // a request running longer than this: the note about the first run

  const $ = (sel) => document.querySelector(sel);
  const board = $("#board");
  const state = {
    history: [],          // applied rounds: {guess, pattern}
    typed: [],            // symbols typed in the active row
    colours: [],          // colour of each tile of the active row (empty | absent | present | correct)
    colourWord: null,     // the word the colours were set on (they belong to it)
    cursor: 0,
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
  resetRow();

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

  function resetRow() {
    state.typed = [];
    state.colours = new Array(L).fill("empty");
    state.colourWord = null;
    state.cursor = 0;
  }

  function touched() {
    return state.typed.length > 0 || state.colours.some((c) => c !== "empty");
  }

  function options() {
    const body = { game: cfg.game, level: Number($("#opt-level").value), hard: $("#opt-hard").checked };
    if ($("#opt-t")) body.t = $("#opt-t").value === "inf" ? "inf" : Number($("#opt-t").value);
    if ($("#opt-extended")) body.extended = $("#opt-extended").checked;
    if ($("#opt-strict")) body.strict = $("#opt-strict").checked;
    return body;
  }

  const OPTION_IDS = ["#opt-level", "#opt-t", "#opt-hard", "#opt-extended", "#opt-strict"];

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

  // ------------------------------------------------------------------ kept boards

  function snapshot() {
    const opts = {};
    for (const id of OPTION_IDS) { const c = $(id); if (c) opts[id.slice(5)] = controlValue(c); }
    const row = touched() ? { typed: state.typed.join(""), colours: state.colours.slice(), word: state.colourWord } : null;
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
    try { localStorage.removeItem(STORE); } catch (e) { /* nothing kept */ }
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
          if (params.has(k)) opts[k] = ["hard", "extended", "strict"].includes(k) ? params.get(k) === "1" : params.get(k);
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
    cfg,
    T,
    L,
    LANG,
    CYCLE,
    CODE,
    STATE,
    RANK,
    alphabet,
    CONTRAST_STORE,
    SLOW_MS,
    $,
    board,
    state,
    fmt,
    num,
    localised,
    resetRow,
    touched,
    options,
    OPTION_IDS,
    controlValue,
    setControl,
    items,
    save,
    forget,
    kept,
    post,
  };
})();
