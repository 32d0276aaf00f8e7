// Fanshot phone page: the table's score sheet over a whole game (docs/games.md). Loaded after
// app.js, whose page state (state, $, API, handJson, errorText) it uses; its own card and texts.
"use strict";

(() => {
  const GAME_TEXT = {
    zh: {
      game: "计分", start: "开始一局", join: "加入", code: "局号", names: "四位玩家（座位 东南西北）",
      next: "第{n}盘 · {wind}风圈 · {dealer}坐庄", over: "本局结束", winner: "和牌", from: "点炮",
      self_drawn: "自摸", record: "记录这手", total: "番数", draw: "荒庄", false_win: "错和（和牌者）",
      undo: "撤销上一手", end: "结束本局", leave: "离开", stale: "别人刚记了一手：请核对计分表后再记。",
      need_hand: "先拍照或输入手牌，或填番数。", drawn: "荒庄", false_by: "{name}错和",
      won: "{name} {total}番 自摸", won_from: "{name} {total}番 {from}点炮", totals: "合计", photo: "照片",
      recorded: "已记录第{n}盘。", share: "同桌的手机打开：", first_dealer: "首盘庄家",
      rules: "规则：",
    },
    en: {
      game: "Game", start: "Start a game", join: "Join", code: "Code", names: "Four players (seats E S W N)",
      next: "Hand {n} · {wind} round · {dealer} deals", over: "The game is over", winner: "Winner",
      from: "Discarder", self_drawn: "Self-drawn", record: "Record this hand", total: "Fan", draw: "Drawn hand",
      false_win: "False win (by the winner)", undo: "Undo last hand", end: "End the game", leave: "Leave",
      stale: "Someone else recorded first: check the sheet and record again.",
      need_hand: "Take a photo or enter the hand first, or type the fan.", drawn: "drawn", false_by: "false win: {name}",
      won: "{name} {total} self-drawn", won_from: "{name} {total} from {from}", totals: "Total", photo: "photo",
      recorded: "Hand {n} recorded.", share: "Other phones at the table open",
      first_dealer: "First dealer", rules: "Rules:",
    },
  };
  const WIND_NAMES = { zh: { E: "东", S: "南", W: "西", N: "北" }, en: { E: "East", S: "South", W: "West", N: "North" } };
  const KEY = "fanshot.game";
  const POLL_MS = 10_000;
  let sheet = null;
  let busy = false;

  const gt = (key, values) => {
    let text = (GAME_TEXT[state.lang] || GAME_TEXT.zh)[key] ?? GAME_TEXT.zh[key] ?? key;
    for (const [name, value] of Object.entries(values || {})) text = text.replace(`{${name}}`, value);
    return text;
  };
  const el = (tag, props, ...children) => {
    const node = Object.assign(document.createElement(tag), props || {});
    node.append(...children);
    return node;
  };

  const card = el("section", { id: "game", className: "card" });
  document.querySelector("main").append(card);

  function say(text) {
    const note = $("game-msg");
    if (note) { note.textContent = text || ""; note.hidden = !text; }
  }

  async function call(method, path, body) {
    busy = true;
    try {
      const response = await fetch(`${API}/games${path}`, { method, headers: body ? { "Content-Type": "application/json" } : {},
        body: body ? JSON.stringify(body) : undefined });
      const answer = await response.json().catch(() => null);
      if (response.ok) return answer;
      const error = answer && answer.error;
      if (error && error.code === "stale_version" && error.params && error.params.sheet) {
        show(error.params.sheet);
        say(gt("stale"));
      } else {
        say(errorText(answer));
        if (error && error.code === "game_not_found") leave();
      }
      return null;
    } catch (e) {
      say(t("network"));
      return null;
    } finally {
      busy = false;
    }
  }

  function show(next) {
    sheet = next;
    if (sheet) localStorage.setItem(KEY, sheet.code);
    render();
  }

  function leave() {
    sheet = null;
    localStorage.removeItem(KEY);
    render();
  }

  function renderStart() {
    const names = [0, 1, 2, 3].map((i) => el("input", { id: `game-name-${i}`, type: "text", maxLength: 40,
      placeholder: WIND_NAMES[state.lang]["ESWN"[i]] }));
    const dealer = el("select", { id: "game-dealer" }, ...[0, 1, 2, 3].map((i) =>
      el("option", { value: String(i), textContent: WIND_NAMES[state.lang]["ESWN"[i]] })));
    const start = el("button", { id: "game-start", type: "button", className: "big", textContent: gt("start") });
    start.addEventListener("click", async () => {
      const players = names.map((input, i) => input.value.trim() || "ESWN"[i]);
      const rules = ["mcr", "mcr-reference", "lianzhong"].includes(state.rules) ? state.rules : "mcr";
      const answer = await call("POST", "", { players, rules, first_dealer: Number(dealer.value) });
      if (answer) show(answer);
    });
    const code = el("input", { id: "game-code", type: "text", maxLength: 16, placeholder: gt("code") });
    const join = el("button", { id: "game-join", type: "button", className: "chip", textContent: gt("join") });
    join.addEventListener("click", () => load(code.value.trim()));
    card.replaceChildren(el("h2", { textContent: gt("game") }), el("p", { className: "hint", textContent: gt("names") }),
      el("div", { className: "game-names" }, ...names), el("label", { className: "hint" }, gt("first_dealer"), " ", dealer),
      el("p", { className: "hint", textContent: `${gt("rules")} ${state.rules}` }), start, el("div", { className: "game-join" }, code, join),
      el("p", { id: "game-msg", className: "hint", hidden: true, role: "status" }));
  }

  function resultText(hand, names) {
    if (hand.outcome === "draw") return gt("drawn");
    if (hand.outcome === "false_win") return gt("false_by", { name: names[hand.offender] });
    return hand.self_drawn ? gt("won", { name: names[hand.winner], total: hand.total })
      : gt("won_from", { name: names[hand.winner], total: hand.total, from: names[hand.discarder] });
  }

  function renderSheet() {
    const names = sheet.players.map((p) => p.name);
    const head = el("tr", {}, el("th", { textContent: "#" }), el("th", { className: "game-what", textContent: "" }),
      ...names.map((n) => el("th", { textContent: n })));
    const rows = sheet.hands.map((hand) => {
      const what = el("td", { className: "game-what", textContent: resultText(hand, names) });
      if (hand.photo_url) what.append(" ", el("a", { href: hand.photo_url, target: "_blank", textContent: gt("photo") }));
      return el("tr", { className: "game-hand" }, el("td", { textContent: String(hand.number) }), what,
        ...hand.payments.map((p, i) => el("td", { textContent: `${p > 0 ? "+" : ""}${p} (${hand.scores[i]})` })));
    });
    const totals = el("tr", {}, el("th", { colSpan: 2, className: "game-what", textContent: gt("totals") }),
      ...sheet.totals.map((v) => el("th", { className: "game-total", textContent: String(v) })));
    const table = el("table", { id: "game-sheet" }, el("thead", {}, head), el("tbody", {}, ...rows), el("tfoot", {}, totals));
    const next = sheet.next ? gt("next", { n: sheet.next.number, wind: WIND_NAMES[state.lang][sheet.next.prevalent_wind],
      dealer: names[sheet.next.dealer] }) : gt("over");
    const parts = [el("h2", { textContent: `${gt("game")} · ${sheet.code}` }),
      el("p", { id: "game-next", className: "hint", textContent: next }), table,
      el("p", { id: "game-link", className: "hint", textContent: `${gt("share")} ${location.origin}/?game=${sheet.code}` })];
    if (sheet.next) parts.push(recordForm(names));
    const undo = el("button", { id: "game-undo", type: "button", className: "chip", textContent: gt("undo") });
    undo.addEventListener("click", async () => { const a = await call("POST", `/${sheet.code}/undo`, { version: sheet.version }); if (a) show(a); });
    const end = el("button", { id: "game-end", type: "button", className: "chip", textContent: gt("end"), hidden: !sheet.next });
    end.addEventListener("click", async () => { const a = await call("POST", `/${sheet.code}/end`, { version: sheet.version }); if (a) show(a); });
    const out = el("button", { id: "game-leave", type: "button", className: "chip", textContent: gt("leave") });
    out.addEventListener("click", leave);
    parts.push(el("div", { className: "game-actions" }, undo, end, out),
      el("p", { id: "game-msg", className: "hint", hidden: true, role: "status" }));
    card.replaceChildren(...parts);
  }

  // The page's own score follows the game: the winner's seat wind, the prevalent wind, self-drawn.
  function followGame(winner, discarder) {
    if (!sheet || !sheet.next || typeof syncContextInputs !== "function") return;
    state.context.seat_wind = sheet.next.seat_winds[winner];
    state.context.prevalent_wind = sheet.next.prevalent_wind;
    state.context.self_drawn = discarder === null;
    syncContextInputs();
    if (state.hand && state.hand.win_tile) rescore();
  }

  function recordForm(names) {
    const winner = el("select", { id: "game-winner" }, ...names.map((n, i) => el("option", { value: String(i), textContent: n })));
    const from = el("select", { id: "game-from" }, el("option", { value: "", textContent: gt("self_drawn") }),
      ...names.map((n, i) => el("option", { value: String(i), textContent: n })));
    const total = el("input", { id: "game-total", type: "number", min: 8, max: 10000, placeholder: gt("total") });
    const seats = () => [Number(winner.value), from.value === "" ? null : Number(from.value)];
    for (const select of [winner, from]) select.addEventListener("change", () => followGame(...seats()));
    const record = el("button", { id: "game-record", type: "button", className: "big primary", textContent: gt("record") });
    record.addEventListener("click", async () => {
      const [w, d] = seats();
      const body = { version: sheet.version, outcome: "win", winner: w, discarder: d };
      const typed = total.value.trim();
      if (typed) body.total = Number(typed);
      else {
        const made = state.hand ? handJson() : { problem: gt("need_hand") };
        if (made.problem) { say(made.problem); return; }
        body.hand = made.hand;
        const match = state.analysis && state.analysis.image_url && state.analysis.image_url.match(/\/images\/([\w-]+)\.jpg$/);
        if (match) body.image_id = match[1];
      }
      const answer = await call("POST", `/${sheet.code}/hands`, body);
      if (answer) { show(answer); say(gt("recorded", { n: answer.hands.length })); }
    });
    const draw = el("button", { id: "game-draw", type: "button", className: "chip", textContent: gt("draw") });
    draw.addEventListener("click", async () => {
      const a = await call("POST", `/${sheet.code}/hands`, { version: sheet.version, outcome: "draw" });
      if (a) show(a);
    });
    const falseWin = el("button", { id: "game-false-win", type: "button", className: "chip", textContent: gt("false_win") });
    falseWin.addEventListener("click", async () => {
      const a = await call("POST", `/${sheet.code}/hands`, { version: sheet.version, outcome: "false_win", offender: seats()[0] });
      if (a) show(a);
    });
    return el("div", { className: "game-record" },
      el("label", {}, gt("winner"), " ", winner), el("label", {}, gt("from"), " ", from), total, record,
      el("div", { className: "game-actions" }, draw, falseWin));
  }

  function render() {
    if (sheet) renderSheet();
    else renderStart();
  }

  async function load(code) {
    if (!code) return;
    const answer = await call("GET", `/${encodeURIComponent(code)}`);
    if (answer) show(answer);
  }

  // Several phones at one table: each sees the others' records within a few seconds.
  setInterval(async () => {
    if (!sheet || busy || document.hidden) return;
    try {
      const response = await fetch(`${API}/games/${sheet.code}`);
      if (response.ok) {
        const fresh = await response.json();
        if (fresh.version !== sheet.version) show(fresh);
      }
    } catch (e) { /* offline for a moment: the next poll */ }
  }, POLL_MS);

  $("lang").addEventListener("click", render);
  render();
  load(new URLSearchParams(location.search).get("game") || localStorage.getItem(KEY));
  window.fanshot.game = () => sheet;  // for the tests and the console
})();
