/* termo board, part 4 of 4: after the game, for one board or several (loaded last; it reads
 * window.termoBoard from board-state.js and listens to board.js's "termo:answered" event).
 *
 * - The review: when the game is over (won, or the tries spent), POST /api/review with the board's
 *   history and options (docs/review.md) and show each guess's cost, verdict, the best guess and
 *   the luck, the skill and luck scores and the method (proved or estimated), in the game's
 *   language. Undo or a new game hides it; an answer that comes after them is dropped.
 * - The share text: the review's `share` (the game's own format, colours only), copied by the
 *   Share button (the clipboard, else the text is selected for the player to copy).
 * - The statistics and streaks of this board (played, won %, current and max streak, the guess
 *   distribution), kept in this browser: a game counts once, when it ends; its result replaces
 *   the one counted before if it ends again (Undo, then another last round), and Undo out of the
 *   end takes it back.
 * - The dark theme of the light games (Wordle, Nerdle): the player's choice, else the system's.
 */
(function () {
  "use strict";

  const { cfg, T, $, fmt, num, items, options, post, keptChoice, keepChoice } = window.termoBoard;  // board-state.js
  const REVIEW = "/api/review";
  const STATS = "termo-stats:v1:" + cfg.game;  // this board's statistics
  const GAME = "termo-game:v1:" + cfg.game;  // the id of the game being played on this board
  const section = $("#review-section");
  let seq = 0;

  function load(key) {
    try { return JSON.parse(localStorage.getItem(key) || "null"); } catch (e) { return null; }
  }

  function store(key, value) {
    try { localStorage.setItem(key, JSON.stringify(value)); } catch (e) { /* private mode, full */ }
  }

  // ------------------------------------------------------------------ statistics

  function blank() {
    return { played: 0, won: 0, streak: 0, max: 0, dist: {} };
  }

  function stats() {
    const s = load(STATS);
    return s && typeof s.played === "number" && s.dist && typeof s.dist === "object" ? s : blank();
  }

  function figures(s) {
    return { played: s.played, won: s.won, streak: s.streak, max: s.max, dist: Object.assign({}, s.dist) };
  }

  // the game on this board: a new id when the board is empty (a new game), kept until the next
  function gameId(history) {
    let id = load(GAME);
    if (!history.length || typeof id !== "string") {
      id = Date.now().toString(36) + Math.random().toString(36).slice(2, 8);
      store(GAME, id);
    }
    return id;
  }

  function count(id, won, turns) {
    const s = stats();
    const base = s.last && s.last.id === id ? s.last.before : figures(s);  // counted before: replaced
    const next = figures(base);
    next.played += 1;
    if (won) {
      next.won += 1;
      next.streak += 1;
      next.max = Math.max(next.max, next.streak);
      next.dist[turns] = (next.dist[turns] || 0) + 1;
    } else {
      next.streak = 0;
    }
    next.last = { id, before: base };
    store(STATS, next);
  }

  function uncount(id) {
    const s = stats();
    if (s.last && s.last.id === id) store(STATS, figures(s.last.before));
  }

  function renderStats() {
    const s = stats();
    const values = { played: s.played, win_pct: s.played ? Math.round((100 * s.won) / s.played) : 0,
      streak: s.streak, max_streak: s.max };
    for (const [key, value] of Object.entries(values)) {
      const el = document.querySelector(`#stats [data-stat="${key}"]`);
      if (el) el.textContent = String(value);
    }
    const turns = Object.keys(s.dist).map(Number).filter((n) => n > 0);
    const top = Math.max(1, ...turns.map((n) => s.dist[n]));
    // every turn up to the tries on a short game, else the turns that happened
    const shown = cfg.tries <= 9 ? Array.from({ length: cfg.tries }, (_, i) => i + 1) : turns.sort((a, b) => a - b);
    $("#distribution").replaceChildren(...shown.map((n) => {
      const li = document.createElement("li");
      li.dataset.turn = String(n);
      const bar = document.createElement("span");
      bar.className = "bar";
      bar.style.width = `${Math.max(8, (100 * (s.dist[n] || 0)) / top)}%`;
      bar.textContent = String(s.dist[n] || 0);
      li.append(Object.assign(document.createElement("span"), { className: "turn", textContent: String(n) }), bar);
      return li;
    }));
  }

  // ------------------------------------------------------------------ the review

  function cell(tr, value) {
    const td = document.createElement("td");
    td.textContent = value;
    tr.appendChild(td);
  }

  function signed(x) {
    return (x > 0 ? "+" : x < 0 ? "−" : "") + num(Math.abs(x), 2);
  }

  function show(data) {
    const rows = data.turns || [];
    $("#review tbody").replaceChildren(...rows.map((turn, i) => {
      const tr = document.createElement("tr");
      tr.dataset.verdict = turn.verdict || "";
      tr.dataset.method = turn.method || "";
      const word = String(turn.guess || "");
      const best = [].concat(turn.best || []).slice(0, 2).join(", ");
      cell(tr, String(i + 1) + (turn.method === "exact" && data.method === "mixed" ? " ✓" : ""));
      cell(tr, cfg.unit === "letters" ? word.toUpperCase() : word);
      cell(tr, turn.cost != null ? num(turn.cost, 2) : "–");
      cell(tr, turn.verdict ? T["verdict_" + turn.verdict] || turn.verdict : T.method_unrated);
      cell(tr, turn.cost ? (cfg.unit === "letters" ? best.toUpperCase() : best) : "");
      cell(tr, turn.luck != null ? signed(turn.luck) : "–");
      if (turn.luck != null) {  // the luck's verdict on a line of its own (a phone's column stays narrow)
        tr.lastChild.appendChild(Object.assign(document.createElement("small"),
          { textContent: T["luck_" + turn.luck_verdict] || "" }));
      }
      return tr;
    }));
    const scores = data.skill != null ? fmt(T.review_scores, { skill: data.skill, luck: data.luck_score }) : "";
    const total = data.total_cost != null
      ? fmt(T.review_total, { cost: num(data.total_cost, 2), verdict: T["verdict_" + data.verdict] || "" }) : "";
    $("#review-scores").textContent = [scores, total].filter(Boolean).join(" · ");
    $("#review-method").textContent = T["method_" + data.method] || "";
  }

  async function review(history) {
    const mine = ++seq;
    section.hidden = false;
    $("#review-status").textContent = T.reviewing;
    $("#review-scores").textContent = "";
    $("#review-method").textContent = "";
    $("#review tbody").replaceChildren();
    const chosen = options();
    const body = { game: cfg.game, history: items(history) };
    for (const key of ["hard", "t", "objective"]) if (chosen[key] !== undefined) body[key] = chosen[key];
    let answer;
    try {
      answer = await post(REVIEW, body);
    } catch (e) {
      answer = { ok: false, data: { detail: T.server_error } };
    }
    if (mine !== seq) return;  // undone, or a new game, while it was coming
    const data = answer.data || {};
    if (!answer.ok) {
      $("#review-status").textContent = fmt(T.review_failed, { message: data.detail || answer.status });
      return;
    }
    $("#review-status").textContent = "";
    show(data);
    shareText(data.share || "");
  }

  function hide() {
    seq++;
    section.hidden = true;
    shareText("");
  }

  // ------------------------------------------------------------------ the share text

  function shareText(value) {
    $("#share-text").textContent = value;
    $("#share-text").hidden = !value;
    $("#share").disabled = !value;
    $("#share-status").textContent = "";
  }

  async function share() {
    const value = $("#share-text").textContent;
    if (!value) return;
    try {
      await navigator.clipboard.writeText(value);
      $("#share-status").textContent = T.copied;
    } catch (e) {
      // no clipboard here (an insecure address, refused): the text selected, for the player to copy
      const range = document.createRange();
      range.selectNodeContents($("#share-text"));
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      $("#share-status").textContent = T.copy_failed;
    }
  }

  // ------------------------------------------------------------------ the dark theme

  const dark = $("#opt-dark");
  function applyTheme(on) {
    document.body.dataset.theme = on ? "dark" : "light";
    if (dark) dark.checked = on;
  }
  if (dark) {
    const kept = keptChoice("theme");
    const system = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
    applyTheme(kept === "dark" || (kept !== "light" && system));
    dark.addEventListener("change", () => {
      applyTheme(dark.checked);
      keepChoice("theme", dark.checked ? "dark" : "light");
    });
  }

  // ------------------------------------------------------------------ wiring

  document.addEventListener("termo:answered", (e) => {
    const { history, over, won } = e.detail;
    const id = gameId(history);
    if (over) {
      count(id, won, history.length);
      $("#stats-details").open = true;
      review(history);
    } else {
      uncount(id);
      hide();
    }
    renderStats();
  });
  $("#share").addEventListener("click", () => { share(); });
  renderStats();
})();
