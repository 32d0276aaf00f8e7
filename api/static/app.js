// Fanshot phone page: take or pick a photo, fix the hand in a few taps, see the fans.
// Plain JavaScript, no build step, nothing loaded from anywhere but this server.
"use strict";

const API = "/api/v1";

const TEXT = {
  zh: {
    tagline: "国标麻将算番", take_photo: "拍照", pick_photo: "从相册选择", enter_by_hand: "手动输入",
    preparing: "准备照片…", uploading: "上传中", analyzing: "识别中…", hand: "手牌", concealed: "门前（暗手）", add_meld: "＋ 副露",
    meld: "副露", win_tile: "和牌", flowers: "花牌", conditions: "和牌条件",
    tap_hint: "点一张牌可以改牌、删除、移入副露或设为和牌。",
    fan_hint: "点一行番种，看它算在哪几张牌上。",
    self_drawn: "自摸", last_tile: "海底（最后一张）", kong_replacement: "杠上开花", robbing_kong: "抢杠和",
    fourth_tile: "和绝张", seat_wind: "门风", prevalent_wind: "圈风", rules: "规则", fans: "番种", fan: "番种",
    points: "番", subtotal: "小计", total: "合计", close: "关闭", remove: "删除", set_win: "设为和牌",
    to_concealed: "移回门前", to_meld: "移入副露", new_meld: "新副露", add_tile: "加一张牌",
    change_tile: "换成", exposed: "明", concealed_kong: "暗杠", remove_meld: "删除副露",
    chow: "吃", pung: "碰", kong: "杠", incomplete: "未完成", meets_min: "够{n}{unit}起和",
    below_min: "不够{n}{unit}起和", below_min_flowers: "不够{n}{unit}起和（花牌不计入：{m}{unit}）", no_tiles: "照片里没有找到牌。", need_win: "请点一张牌设为和牌。",
    meld_size: "每个副露需要 3 或 4 张牌。", busy: "服务器忙，请稍后再试。", failed: "出错了",
    use_alt: "改用这个读法", network: "网络错误，请重试。", not_set: "—（无）", winds: { E: "东", S: "南", W: "西", N: "北" },
    confirm: "没错", doubt_read_as: "识别为{read} {code}，按{tile}计算才能和牌，请核对。",
    doubt_unsure: "这张牌识别把握不大（{score}），请核对。",
    left_out: "核对时剔除（可能是同一张牌的两个框）：点一下放回手牌",
  },
  en: {
    tagline: "MCR mahjong scorer", take_photo: "Take photo", pick_photo: "Pick from gallery",
    enter_by_hand: "Enter by hand", preparing: "Preparing the photo…", uploading: "Uploading", analyzing: "Reading the tiles…", hand: "Hand",
    concealed: "Concealed", add_meld: "+ Meld", meld: "Meld", win_tile: "Winning tile", flowers: "Flowers",
    conditions: "How it was won", fan_hint: "Tap a fan to see the tiles it is counted on.", tap_hint: "Tap a tile to change it, remove it, move it or mark it as the winning tile.",
    self_drawn: "Self-drawn", last_tile: "Last tile", kong_replacement: "Kong replacement",
    robbing_kong: "Robbing the kong", fourth_tile: "Fourth tile", seat_wind: "Seat wind",
    prevalent_wind: "Prevalent wind", rules: "Rules", fans: "Fans", fan: "Fan", points: "Pts",
    subtotal: "Sum", total: "Total", close: "Close", remove: "Remove", set_win: "Winning tile",
    to_concealed: "To concealed", to_meld: "To meld", new_meld: "New meld", add_tile: "Add a tile",
    change_tile: "Change to", exposed: "Exposed", concealed_kong: "Concealed kong", remove_meld: "Remove meld",
    chow: "Chow", pung: "Pung", kong: "Kong", incomplete: "incomplete", meets_min: "Meets the {n} {unit} minimum",
    below_min: "Below the {n} {unit} minimum", below_min_flowers: "Below the {n} {unit} minimum ({m} without the flowers, which do not count)", no_tiles: "No tiles found in the photo.",
    need_win: "Tap a tile and mark it as the winning tile.", meld_size: "Each meld needs 3 or 4 tiles.",
    busy: "The server is busy; try again in a moment.", failed: "Something went wrong",
    use_alt: "Use this reading", network: "Network error; please retry.", not_set: "— (none)",
    winds: { E: "East", S: "South", W: "West", N: "North" },
    confirm: "It's right", doubt_read_as: "read as {read} {code}; scored as {tile} so that the hand wins; check it.",
    doubt_unsure: "read with low confidence ({score}); check it.",
    left_out: "Left out by the check (likely one tile boxed twice): tap one to put it back in the hand",
  },
};

const NUM_ZH = ["一", "二", "三", "四", "五", "六", "七", "八", "九"];
const HONOUR_ZH = { F1: "东", F2: "南", F3: "西", F4: "北", J1: "中", J2: "发", J3: "白",
  H1: "春", H2: "夏", H3: "秋", H4: "冬", H5: "梅", H6: "兰", H7: "竹", H8: "菊" };
const HONOUR_EN = { F1: "E", F2: "S", F3: "W", F4: "N", J1: "C", J2: "F", J3: "P" };
const SUIT_ZH = { W: "万", T: "条", B: "饼" };  // 万 as MCR writes it in mainland China
const SUIT_EN = { W: "m", T: "s", B: "p" };
const PLAY_TILES = [..."WTB"].flatMap((s) => [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => s + n))
  .concat(["F1", "F2", "F3", "F4", "J1", "J2", "J3"]);
const FLOWER_TILES = ["H1", "H2", "H3", "H4", "H5", "H6", "H7", "H8"];
// The layout's warnings in Chinese, by code (vision/layout_warnings.py; `warning_details` of
// POST /analyze gives each warning's code and params). Other languages show the server's English.
const WARNING_ZH = {
  tile_read_two_ways: (p) => `同一张牌有两种读法：${tileNameZh(p.kept)}（${p.kept_score.toFixed(2)}）或` +
    `${tileNameZh(p.other)}（${p.other_score.toFixed(2)}），取${tileNameZh(p.kept)}`,
  win_tile_not_apart: (p) => `和牌张没有单独放开：按这一行最后一张${tileNameZh(p.tile)}作和牌计算，` +
    "以其他牌作和牌的读法见下面的选项",
  hidden_kong_tile_unknown: (p) => `暗杠的四张牌背面朝上，看不出是哪张牌：按多数可能的牌计 ${p.total}` +
    `（当作${p.tiles.map(tileNameZh).join("、")}）` +
    (p.min_total !== p.max_total ? `，可能从 ${p.min_total} 到 ${p.max_total}` : "") +
    "；翻开其中两张可以算得准确",
  unusual_layout: (p) => `牌的摆法不像一般的一手牌，读作：${readingZh(p.reading)}`,
  grouping_ambiguous: (p) => `分组有不止一种读法，取番数最高的：${readingZh(p.reading)}`,
  strays_left_out: (p) => `离手牌较远的 ${p.count} 张牌没有计入：${p.tiles.map(tileNameZh).join("、")}`,
  low_confidence: (p) => `这些牌识别把握不大（低于 ${p.threshold}），请核对：` +
    p.tiles.map((x) => `${tileNameZh(x.tile)}（${x.score.toFixed(2)}）`).join("、"),
  reading_repaired: (p) => p.changes.map((c) => c.removed
    ? `识别为${tileNameZh(c.from)}的牌没有计入（可能是同一张牌识别了两次，或不是牌）`
    : (c.added ? "一张识别把握很小的牌" : `识别为${tileNameZh(c.from)}的牌`) + `按${tileNameZh(c.to)}计算` +
    `（识别的第${c.choice >= 1 && c.choice <= 4 ? "一二三四"[c.choice - 1] : c.choice}选择）`).join("；") +
    "，这样才能和牌，请核对",
};
// Errors in Chinese, by code: the layout's (vision/layout_warnings.py, LAYOUT_ERROR_CODES, with
// params), the scorer's (scoring/errors.py ERROR_CODES: wrong_tile_count and too_many_copies with
// params; the others, or an error without params, say what the code means) and the upload's. vision/messages_zh.py has the same texts for the annotated photo.
const ERROR_ZH = {
  no_tiles: (p) => "照片里没有找到牌",
  wrong_tile_count: (p) => {
    if (p.found === undefined) return "牌数不对：和牌是 14 张，每个杠多一张";
    if (p.melds) return `有 ${p.melds} 个副露：一手牌最多四个`;
    const kongs = p.kongs ? `（${p.kongs} 个杠共 ${p.needed} 张）` : "";
    return p.found < p.needed ? `找到 ${p.found} 张牌；和牌需要 14 张，每个杠多一张${kongs}`
      : `找到 ${p.found} 张牌；和牌是 14 张，每个杠多一张${kongs}：多了 ${p.found - p.needed} 张`;
  },
  backs_outside_kong: (p) => (p.found === undefined ? "有背面朝上的牌不在暗杠里："
    : `找到 ${p.found} 张牌，张数够了，但其中 ${p.backs} 张背面朝上、不在暗杠里：`) +
    "背面朝上的牌只能是暗杠的一部分（请核对识别为牌背的牌）",
  invalid_hand: (p) => "手牌的格式不对",
  bad_notation: (p) => "看不懂这种牌的写法",
  unknown_tile: (p) => "有不存在的牌",
  misplaced_flower: (p) => "花牌放错了地方：花牌不算在手牌和副露里，花牌栏里也只能放花牌",
  too_many_copies: (p) => {
    if (p.tile === undefined) return "同一张牌超过了四张（或同一张花牌出现了两次）";
    return p.tile.startsWith("H") ? `花牌${tileNameZh(p.tile)}有 ${p.count} 张：每张花牌只有一张`
      : `${tileNameZh(p.tile)}有 ${p.count} 张：每种牌只有四张`;
  },
  impossible_meld: (p) => "有不能成立的吃、碰或杠",
  invalid_context: (p) => "和牌条件的取值不对",
  unknown_context_key: (p) => "这个规则没有这项和牌条件",
  kong_replacement_without_kong: (p) => "杠上开花不成立：手里没有杠",
  kong_replacement_on_discard: (p) => "杠上开花必须是自摸",
  robbing_kong_self_drawn: (p) => "抢杠和是和别人的牌，不能是自摸",
  robbing_kong_impossible: (p) => "抢杠和不成立：手里还有这张牌",
  fourth_tile_impossible: (p) => "和绝张不成立：门前手牌里还有这张牌",
  not_a_winning_hand: (p) => "这手牌没有和：牌组不成和牌型",
  unknown_ruleset: (p) => "没有这个规则",
  not_covered: (p) => "这手牌用到的规则我们还没有（工地 1990 只收了一部分）",
  flowers_not_allowed: (p) => "这个规则没有花牌",
  not_an_image: (p) => "上传的不是能读的图片（请用 JPEG、PNG、WebP 或 HEIC）",
  empty: (p) => "图片是空的",
  truncated: (p) => "图片不完整或已损坏",
  too_many_pixels: (p) => "图片像素太多",
  upload_too_large: (p) => "图片文件太大",
  model_not_found: (p) => "服务器还没有装识别模型",
  tileset_not_found: (p) => "服务器上没有这套牌：请重新学习",
  tileset_unreadable: (p) => "这套牌的资料读不出来：请重新学习",
  photo_not_found: (p) => "这张照片已经过期，改牌没有记住",
  layout_mismatch: (p) => (p.found === undefined ? "照片里的牌没有按顺序摆好"
    : `找到 ${p.found} 张牌，${p.rows.length} 行（${p.rows.join("、")}）：应是 34、35、42 或 43 张，按顺序摆放`),
  invalid_request: (p) => "请求的内容不对",
};
const CONTEXT_FLAGS = ["self_drawn", "last_tile", "kong_replacement", "robbing_kong", "fourth_tile"];
const WINDS = ["E", "S", "W", "N"];

const $ = (id) => document.getElementById(id);

const state = {
  lang: localStorage.getItem("fanshot.lang") ||
    ((navigator.language || "zh").toLowerCase().startsWith("zh") ? "zh" : "en"),
  rules: "mcr",
  rulesets: [],
  hand: null,        // {concealed: [], melds: [{tiles, exposed, claimed, from}], win_tile, flowers: []}
  context: { self_drawn: false, seat_wind: "E", prevalent_wind: "E", last_tile: false,
    kong_replacement: false, robbing_kong: false, fourth_tile: false },
  extra: {},         // the chosen rule set's own context fields (its context_fields in GET /rules)
  analysis: null,
  doubts: [],        // tiles of the photo to check: [{code, read_as, score, where}] (doubtsOf)
  leftOut: [],       // codes of the photo's tiles the reading repair left out (tiles[].dropped)
  photoError: null,  // () => text of the photo's error, or null
  scoreSeq: 0,
  tileset: localStorage.getItem("fanshot.tileset") || "",  // the player's tile set, sent with each photo (tilesets.js)
};

function t(key) { return TEXT[state.lang][key] ?? TEXT.zh[key] ?? key; }

// ---------- tiles ----------

function tileLabel(code) {
  const suit = code[0], n = Number(code.slice(1));
  if (SUIT_ZH[suit]) return { face: NUM_ZH[n - 1], suit: SUIT_ZH[suit], code: n + SUIT_EN[suit] };
  return { face: HONOUR_ZH[code], suit: "", code: HONOUR_EN[code] || code };
}

// A tile's Chinese name (五饼, 东, 牌背); a meld's tiles under one suit (一二三万, 五五五饼).
function tileNameZh(code) {
  if (code === "BACK") return "牌背";
  const l = tileLabel(code);
  return l.face ? l.face + l.suit : code;
}

function meldNameZh(tiles) {
  const suits = new Set(tiles.map((c) => c[0]));
  if (suits.size === 1 && SUIT_ZH[tiles[0][0]]) return tiles.map((c) => tileLabel(c).face).join("") + SUIT_ZH[tiles[0][0]];
  return tiles.map(tileNameZh).join("");
}

// A reading of the tiles (the `reading` params of a warning or an alternative) in Chinese.
function readingZh(r) {
  const parts = [`和牌${tileNameZh(r.win_tile)}${r.win_apart ? "" : "（未单独放开）"}`];
  parts.push(`副露：${r.melds.length ? r.melds.map(meldNameZh).join("、") : "无"}`);
  if (r.left_out !== null && r.left_out !== undefined) {
    parts.push(`未计入：${r.left_out.length ? r.left_out.map(tileNameZh).join("、") : "无"}`);
  }
  return parts.join("；");
}

function tileButton(code, onTap, extraClass) {
  const b = document.createElement("button");
  b.type = "button";
  const suit = code[0];
  b.className = `tile ${suit} ${code}` + (extraClass ? " " + extraClass : "");
  b.dataset.tile = code;
  const l = tileLabel(code);
  b.innerHTML = `<span class="face">${l.face}</span><span class="suit">${l.suit}</span><span class="code">${l.code}</span>`;
  b.setAttribute("aria-label", code);
  if (onTap) b.addEventListener("click", onTap);
  return b;
}

function addButton(onTap, label) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "tile add";
  b.textContent = "＋";
  b.setAttribute("aria-label", label);
  b.addEventListener("click", onTap);
  return b;
}

function sortTiles(tiles) {
  const order = (c) => PLAY_TILES.indexOf(c) >= 0 ? PLAY_TILES.indexOf(c) : 100 + FLOWER_TILES.indexOf(c);
  return tiles.slice().sort((a, b) => order(a) - order(b));
}

function meldKind(tiles) {
  if (tiles.length === 4 && tiles.every((x) => x === tiles[0])) return "kong";
  if (tiles.length === 3 && tiles.every((x) => x === tiles[0])) return "pung";
  if (tiles.length === 3) {
    const s = sortTiles(tiles);
    const suited = s.every((x) => "WTB".includes(x[0]) && x[0] === s[0][0]);
    const n = s.map((x) => Number(x.slice(1)));
    if (suited && n[1] === n[0] + 1 && n[2] === n[1] + 1) return "chow";
  }
  return null;
}

// ---------- hand editing ----------

// A place is where a tile sits: {where: "concealed"|"meld"|"win"|"flowers", meld, index}.
function tilesAt(place) {
  const h = state.hand;
  if (place.where === "concealed") return h.concealed;
  if (place.where === "flowers") return h.flowers;
  if (place.where === "meld") return h.melds[place.meld].tiles;
  return null;
}

function codeAt(place) {
  return place.where === "win" ? state.hand.win_tile : tilesAt(place)[place.index];
}

function setCode(place, code) {
  if (place.where === "win") { state.hand.win_tile = code; return; }
  const tiles = tilesAt(place);
  // a kong is four of one tile: changing one of them changes the kong's tile (a concealed kong
  // photographed as four backs is read as the likeliest tile: the player sets the real one)
  if (place.where === "meld" && meldKind(tiles) === "kong") tiles.fill(code);
  else tiles[place.index] = code;
  if (place.where === "meld") delete state.hand.melds[place.meld].claimed;
}

function removeAt(place) {
  if (place.where === "win") { state.hand.win_tile = null; return; }
  tilesAt(place).splice(place.index, 1);
  if (place.where === "meld") {
    const meld = state.hand.melds[place.meld];
    delete meld.claimed;
    if (meld.tiles.length === 0) state.hand.melds.splice(place.meld, 1);
  }
}

function markWinning(place) {
  const code = codeAt(place);
  const old = state.hand.win_tile;
  state.hand.concealed.splice(place.index, 1);
  if (old) state.hand.concealed.push(old);
  state.hand.concealed = sortTiles(state.hand.concealed);
  state.hand.win_tile = code;
}

function moveToMeld(place, meldIndex) {
  const code = codeAt(place);
  removeAt(place);
  if (meldIndex === null || meldIndex >= state.hand.melds.length) {
    state.hand.melds.push({ tiles: [code], exposed: true });
  } else {
    const meld = state.hand.melds[meldIndex];
    meld.tiles = sortTiles(meld.tiles.concat([code]));
    delete meld.claimed;
  }
}

function moveToConcealed(place) {
  const code = codeAt(place);
  removeAt(place);
  state.hand.concealed = sortTiles(state.hand.concealed.concat([code]));
}

function changed() {
  renderHand();
  rescore();
}

// ---------- tiles to check (read with low confidence, or read as another tile) ----------

const HAND_AREAS = { concealed: "concealed", meld: "meld", win: "win", flower: "flowers" };

// The photo's tiles the player should check: those the analysis says were read with low
// confidence or scored as another tile than the detector read (`read_as`, the reading repair).
function doubtsOf(analysis) {
  return (analysis.tiles || [])
    .filter((x) => (x.read_as || x.low_confidence) && (!analysis.hand || x.role in HAND_AREAS))
    .map((x) => ({ code: x.tile, read_as: x.read_as || null, score: x.score, where: HAND_AREAS[x.role] || "concealed" }));
}

// The photo's tiles the reading repair dropped to make the hand win (likely one tile boxed twice):
// shown apart, so that the player sees them and can put one back.
function leftOutOf(analysis) {
  return (analysis.tiles || []).filter((x) => x.dropped && (PLAY_TILES.includes(x.tile) || FLOWER_TILES.includes(x.tile)))
    .map((x) => x.tile);
}

function putBack(index) {
  const [code] = state.leftOut.splice(index, 1);
  const where = FLOWER_TILES.includes(code) ? "flowers" : "concealed";
  state.hand[where] = sortTiles(state.hand[where].concat([code]));
}

// Every tile of the hand with its place, in the order the page shows them.
function handPlaces() {
  const h = state.hand, out = [];
  h.concealed.forEach((c, i) => out.push([{ where: "concealed", index: i }, c]));
  h.melds.forEach((m, k) => m.tiles.forEach((c, i) => out.push([{ where: "meld", meld: k, index: i }, c])));
  if (h.win_tile) out.push([{ where: "win" }, h.win_tile]);
  h.flowers.forEach((c, i) => out.push([{ where: "flowers", index: i }, c]));
  return out;
}

const placeKey = (place) => `${place.where}:${place.meld ?? ""}:${place.index ?? ""}`;

// Which hand tile each doubt marks (placeKey -> doubt): a tile of its code in its part of the
// hand, else anywhere (the player may have moved it); one doubt per tile.
function doubtPlaces() {
  const places = handPlaces(), marked = new Map();
  for (const doubt of state.doubts) {
    const free = places.filter(([p, c]) => c === doubt.code && !marked.has(placeKey(p)));
    const hit = free.find(([p]) => p.where === doubt.where) || free[0];
    if (hit) marked.set(placeKey(hit[0]), doubt);
  }
  return marked;
}

function dropDoubt(doubt) { state.doubts = state.doubts.filter((d) => d !== doubt); }

function doubtText(doubt) {
  if (doubt.read_as) {
    return t("doubt_read_as").replace("{read}", tileNameZh(doubt.read_as)).replace("{code}", doubt.read_as)
      .replace("{tile}", state.lang === "zh" ? tileNameZh(doubt.code) : doubt.code);
  }
  return t("doubt_unsure").replace("{score}", Number(doubt.score).toFixed(2));
}

// A tile of the hand: tapping it opens the sheet; a tile to check is marked (amber, "?").
function handTile(code, place, doubts) {
  const doubt = doubts.get(placeKey(place));
  const b = tileButton(code, () => tapTile(place), doubt ? "doubt" : "");
  if (doubt) {
    const badge = document.createElement("span");
    badge.className = "badge";
    badge.textContent = "?";
    b.append(badge);
    b.setAttribute("aria-label", `${code} ?`);
  }
  return b;
}

// ---------- the tile sheet (palette and actions) ----------

// stayOpen: the palette stays up after a pick, to add several tiles in a row.
function openSheet(title, actions, paletteTiles, onPick, selected, stayOpen) {
  $("sheet-title").textContent = title;
  showSheetNote(null);
  const box = $("sheet-actions");
  box.replaceChildren();
  for (const [label, fn, id] of actions) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "chip";
    b.textContent = label;
    if (id) b.id = id;
    b.addEventListener("click", () => { closeSheet(); fn(); changed(); });
    box.append(b);
  }
  const palette = $("palette");
  palette.replaceChildren();
  for (const code of paletteTiles) {
    palette.append(tileButton(code, () => { if (!stayOpen) closeSheet(); onPick(code); changed(); },
      code === selected ? "selected" : ""));
  }
  $("sheet").hidden = false;
}

function closeSheet() { $("sheet").hidden = true; }

function showSheetNote(text) {
  $("sheet-note").hidden = !text;
  $("sheet-note").textContent = text || "";
}

function tapTile(place) {
  const code = codeAt(place);
  const doubt = doubtPlaces().get(placeKey(place));
  const settled = (fn) => (...args) => { if (doubt) dropDoubt(doubt); fn(...args); };  // the tile is checked once acted on
  const actions = [[t("remove"), settled(() => removeAt(place)), "act-remove"]];
  if (doubt) actions.unshift([t("confirm"), settled(() => {}), "act-confirm"]);
  if (place.where === "concealed") {
    actions.push([t("set_win"), () => markWinning(place), "act-win"]);
    state.hand.melds.forEach((m, i) => {
      if (m.tiles.length < 4) actions.push([`${t("to_meld")} ${i + 1}`, () => moveToMeld(place, i), `act-meld-${i}`]);
    });
    if (state.hand.melds.length < 4) actions.push([t("new_meld"), () => moveToMeld(place, null), "act-new-meld"]);
  } else if (place.where === "meld") {
    actions.push([t("to_concealed"), () => moveToConcealed(place), "act-concealed"]);
  }
  const palette = place.where === "flowers" ? FLOWER_TILES : PLAY_TILES;
  const change = (c) => {
    setCode(place, c);
    // tilesets.js keeps a photo's corrected tile for the player's tile set
    if (c !== code) document.dispatchEvent(new CustomEvent("fanshot:tile-changed", { detail: { place, from: code, to: c } }));
  };
  openSheet(`${t("change_tile")} (${tileLabel(code).code})`, actions, palette, settled(change), code);
  if (doubt) showSheetNote(doubtText(doubt));
}

function tapAdd(where, meldIndex) {
  const palette = where === "flowers" ? FLOWER_TILES : PLAY_TILES;
  openSheet(t("add_tile"), [], palette, (code) => {
    if (where === "win") state.hand.win_tile = code;
    else if (where === "meld") {
      const meld = state.hand.melds[meldIndex];
      meld.tiles = sortTiles(meld.tiles.concat([code]));
    } else {
      state.hand[where] = sortTiles(state.hand[where].concat([code]));
    }
  }, null, where === "concealed" || where === "flowers");
}

// ---------- rendering ----------

function renderHand() {
  const h = state.hand;
  $("hand").hidden = $("conditions").hidden = $("score").hidden = !h;
  if (!h) return;
  const doubts = doubtPlaces();
  const concealed = $("concealed");
  concealed.replaceChildren(...h.concealed.map((c, i) => handTile(c, { where: "concealed", index: i }, doubts)),
    addButton(() => tapAdd("concealed"), t("add_tile")));

  const melds = $("melds");
  melds.replaceChildren();
  h.melds.forEach((meld, m) => {
    const group = document.createElement("div");
    group.className = "group meld";
    group.dataset.meld = m;
    const head = document.createElement("div");
    head.className = "group-head";
    const kind = meldKind(meld.tiles);
    const name = document.createElement("span");
    name.textContent = `${t("meld")} ${m + 1} · ${kind ? t(kind) : t("incomplete")}`;
    head.append(name);
    if (kind === "kong") {
      const toggle = document.createElement("button");
      toggle.type = "button";
      toggle.className = "chip";
      toggle.textContent = meld.exposed ? t("exposed") : t("concealed_kong");
      toggle.addEventListener("click", () => { meld.exposed = !meld.exposed; changed(); });
      head.append(toggle);
    }
    const drop = document.createElement("button");
    drop.type = "button";
    drop.className = "chip";
    drop.textContent = t("remove_meld");
    drop.addEventListener("click", () => {
      h.concealed = sortTiles(h.concealed.concat(meld.tiles));
      h.melds.splice(m, 1);
      changed();
    });
    head.append(drop);
    const tiles = document.createElement("div");
    tiles.className = "tiles";
    tiles.append(...meld.tiles.map((c, i) => handTile(c, { where: "meld", meld: m, index: i }, doubts)));
    if (meld.tiles.length < 4) tiles.append(addButton(() => tapAdd("meld", m), t("add_tile")));
    group.append(head, tiles);
    melds.append(group);
  });
  $("add-meld").hidden = h.melds.length >= 4;

  const win = $("win-tile");
  win.replaceChildren(h.win_tile ? handTile(h.win_tile, { where: "win" }, doubts)
    : addButton(() => tapAdd("win"), t("win_tile")));
  const flowers = $("flowers");
  flowers.replaceChildren(...h.flowers.map((c, i) => handTile(c, { where: "flowers", index: i }, doubts)));
  if (h.flowers.length < 8) flowers.append(addButton(() => tapAdd("flowers"), t("flowers")));
  $("left-out-group").hidden = !state.leftOut.length;
  $("left-out").replaceChildren(...state.leftOut.map((c, i) => tileButton(c, () => { putBack(i); changed(); }, "left-out")));
}

function renderScore(score, error) {
  const body = $("fan-table").tBodies[0];
  body.replaceChildren();
  $("score-error").hidden = !error;
  $("score-error").textContent = error || "";
  if (!score) {
    $("total").textContent = "–";
    $("minimum").textContent = "";
    return;
  }
  for (const fan of score.fans) {
    const row = body.insertRow();
    const [main, other] = state.lang === "zh" ? [fan.name_zh, fan.name_en] : [fan.name_en, fan.name_zh];
    const name = row.insertCell();
    name.textContent = main;
    const small = document.createElement("small");
    small.textContent = other;
    name.append(small);
    row.insertCell().textContent = fan.points;
    row.insertCell().textContent = fan.count;
    row.insertCell().textContent = fan.points * fan.count;
    row.addEventListener("click", () => {
      const on = !row.classList.contains("picked");
      for (const r of body.rows) r.classList.remove("picked");
      row.classList.toggle("picked", on);
      highlightTiles(on ? (fan.tiles || []).flat(Infinity) : []);
    });
  }
  highlightTiles([]);
  $("total").textContent = score.total;
  const unit = !score.unit || score.unit === "fan" ? (state.lang === "zh" ? "番" : "fan") : score.unit;
  $("points-head").textContent = !score.unit || score.unit === "fan" ? t("points") : score.unit;
  // MCR's flowers do not count towards the minimum: a total of 10 with 3 flowers is 7 < 8
  const flowers = score.fans.filter((fan) => fan.key === "FLOWER_TILES").reduce((sum, fan) => sum + fan.points * fan.count, 0);
  const verdict = score.meets_minimum ? "meets_min" : flowers ? "below_min_flowers" : "below_min";
  const minimum = score.minimum === undefined || score.minimum === null ? "" :
    t(verdict).replace("{n}", score.minimum).replace(/\{unit\}/g, unit).replace("{m}", score.total - flowers);
  $("minimum").textContent = minimum;
}

// Mark in the hand the tiles a fan is counted on (one hand tile per listed tile).
function highlightTiles(codes) {
  const wanted = {};
  for (const code of codes) wanted[code] = (wanted[code] || 0) + 1;
  for (const el of document.querySelectorAll("#hand .tile[data-tile]")) {
    const code = el.dataset.tile;
    const hit = wanted[code] > 0;
    if (hit) wanted[code] -= 1;
    el.classList.toggle("hl", hit);
  }
}

function renderAnalysis() {
  const a = state.analysis;
  $("photo").hidden = !a;
  if (!a) return;
  const img = $("annotated");
  if (a.image_url) img.src = a.image_url;
  else if (a.image_base64) img.src = "data:image/jpeg;base64," + a.image_base64;
  img.hidden = !(a.image_url || a.image_base64);
  const warnings = $("warnings");
  const details = a.warning_details || a.warnings || [];
  warnings.replaceChildren(...details.map((w) => {
    const li = document.createElement("li");
    li.textContent = warningText(w);
    if (w && w.code) li.dataset.code = w.code;
    return li;
  }));
  const alts = $("alternatives");
  alts.replaceChildren();
  (a.alternatives || []).forEach((alt, i) => {
    if (!alt || !alt.hand) return;
    const b = document.createElement("button");
    b.type = "button";
    b.className = "chip";
    b.id = `alt-${i}`;
    const why = readingText(alt);
    const total = alt.total === null || alt.total === undefined ? "" : ` → ${alt.total}`;
    b.textContent = `${t("use_alt")}${why ? ": " + why : ""}${total}`;
    b.addEventListener("click", () => { loadHand(alt.hand); changed(); });
    alts.append(b);
  });
}

// A warning in the page's language: Chinese by its code when the page is in Chinese, else
// (or for a code the page does not know) the server's English text.
function warningText(w) {
  if (state.lang === "zh" && w && WARNING_ZH[w.code]) {
    try { return WARNING_ZH[w.code](w.params || {}); } catch (e) { /* params not as expected: the English */ }
  }
  return describe(w);
}

function readingText(alt) {
  if (state.lang === "zh" && alt.reading) {
    try { return readingZh(alt.reading); } catch (e) { /* the English description */ }
  }
  return describe(alt);
}

// A warning or alternative as text, in the page's language where the server gave both.
function describe(item) {
  if (item == null) return "";
  if (typeof item === "string") return item;
  const lang = state.lang;
  return item[`message_${lang}`] || item[`text_${lang}`] || item.message || item.text || item.reason ||
    item.description || item.code || "";
}

function applyLanguage() {
  document.documentElement.lang = state.lang === "zh" ? "zh-CN" : "en";
  $("lang").textContent = state.lang === "zh" ? "EN" : "中文";
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const id of ["ctx-seat_wind", "ctx-prevalent_wind"]) {
    const select = $(id);
    const value = select.value || "E";
    select.replaceChildren(...WINDS.map((w) => new Option(t("winds")[w], w)));
    select.value = value;
  }
  renderRules();
  renderHand();
  renderAnalysis();
  showError(state.photoError);
  if (state.hand) rescore();
}

function ruleTitle(rs) {
  const title = rs.title;
  if (title && typeof title === "object") return title[state.lang] || title.zh || title.en || rs.name;
  const extra = state.lang === "zh" ? rs.title_zh : rs.title_en;
  return extra || title || rs.name;
}

function renderRules() {
  const select = $("rules");
  const sets = state.rulesets.length ? state.rulesets : [{ name: "mcr", title: "MCR" }];
  select.replaceChildren(...sets.map((rs) => new Option(ruleTitle(rs), rs.name)));
  select.value = state.rules;
  renderExtraFields();
}

// ---------- the rule set's own context fields (dealer, first turn, wild tile for lianzhong) ----------

function extraFields() {
  const rs = state.rulesets.find((r) => r.name === state.rules);
  return ((rs && rs.context_fields) || []).filter((f) => ["bool", "enum", "tile"].includes(f.type));
}

// Keep the values of the fields the chosen rule set reads, each at its default until set; drop the rest.
function keepExtraFields() {
  const kept = {};
  for (const field of extraFields()) {
    kept[field.name] = field.name in state.extra ? state.extra[field.name] : (field.default ?? null);
  }
  state.extra = kept;
}

function fieldLabel(label) {
  return (label && (label[state.lang] || label.zh || label.en)) || "";
}

function tileOptionText(code) {
  const l = tileLabel(code);
  return `${l.face}${l.suit} (${l.code})`;
}

function renderExtraFields() {
  keepExtraFields();
  const switches = $("extra-switches"), selects = $("extra-selects");
  switches.replaceChildren();
  selects.replaceChildren();
  const fields = extraFields();
  $("extra-fields").hidden = fields.length === 0;
  for (const field of fields) {
    const label = document.createElement("label");
    const name = document.createElement("span");
    name.textContent = fieldLabel(field.label);
    const value = state.extra[field.name];
    if (field.type === "bool") {
      const box = document.createElement("input");
      box.type = "checkbox";
      box.id = `ctx-${field.name}`;
      box.checked = !!value;
      box.addEventListener("change", () => { state.extra[field.name] = box.checked; rescore(); });
      label.append(box, " ", name);
      switches.append(label);
      continue;
    }
    const select = document.createElement("select");
    select.id = `ctx-${field.name}`;
    const options = field.type === "enum"
      ? field.values.map((v) => new Option(fieldLabel(v.label) || v.value, v.value))
      : field.values.map((code) => new Option(tileOptionText(code), code));
    select.replaceChildren(new Option(t("not_set"), ""), ...options);
    select.value = value ?? "";
    select.addEventListener("change", () => { state.extra[field.name] = select.value || null; rescore(); });
    label.className = "wide";
    label.append(name, " ", select);
    selects.append(label);
  }
}

// ---------- server calls ----------

function loadHand(hand) {
  state.hand = {
    concealed: sortTiles(hand.concealed || []),
    melds: (hand.melds || []).map((m) => ({ tiles: m.tiles.slice(), exposed: m.exposed !== false,
      claimed: m.claimed, from: m.from })),
    win_tile: hand.win_tile || null,
    flowers: sortTiles(hand.flowers || []),
  };
  if (hand.context) {
    for (const [key, value] of Object.entries(hand.context)) {
      if (key in state.context) state.context[key] = value;
      else if (key in state.extra) state.extra[key] = value;  // a field the chosen rule set reads
    }
    syncContextInputs();
    renderExtraFields();
  }
}

function handJson() {
  const h = state.hand;
  if (!h.win_tile) return { problem: t("need_win") };
  const melds = [];
  for (const m of h.melds) {
    const kind = meldKind(m.tiles);
    if (m.tiles.length < 3 || m.tiles.length > 4) return { problem: t("meld_size") };
    const meld = { kind: kind || (m.tiles.length === 4 ? "kong" : "chow"), tiles: sortTiles(m.tiles),
      exposed: kind === "kong" ? m.exposed : true };
    if (m.claimed && m.tiles.includes(m.claimed)) meld.claimed = m.claimed;
    if (m.from) meld.from = m.from;
    melds.push(meld);
  }
  return { hand: { concealed: h.concealed, melds, win_tile: h.win_tile, flowers: h.flowers,
    context: { ...state.context, ...state.extra } } };
}

async function rescore() {
  if (!state.hand) return;
  const seq = ++state.scoreSeq;
  const built = handJson();
  if (built.problem) { renderScore(null, built.problem); return; }
  document.body.dataset.scoring = "1";
  try {
    const response = await fetch(`${API}/score`, { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ hand: built.hand, rules: state.rules }) });
    const body = await response.json();
    if (seq !== state.scoreSeq) return;  // a newer change is on its way
    if (response.ok) renderScore(body, null);
    else renderScore(null, errorText(body));
  } catch (e) {
    if (seq === state.scoreSeq) renderScore(null, t("network"));
  } finally {
    if (seq === state.scoreSeq) delete document.body.dataset.scoring;
  }
}

// An error answer (or an analysis's `error`) in the page's language: Chinese by its code when
// the page is in Chinese, else (or for a code the page does not know) the server's English.
function errorText(body) {
  const err = body && body.error;
  if (!err) return t("failed");
  if (state.lang === "zh" && ERROR_ZH[err.code]) {
    try { return ERROR_ZH[err.code](err.params || {}); } catch (e) { /* params not as expected: the English */ }
  }
  return `${err.message}`;
}

function showProgress(text, percent) {
  $("progress").hidden = text === null;
  $("progress-text").textContent = text || "";
  const bar = $("progress-bar");
  if (percent === null || percent === undefined) bar.removeAttribute("value");
  else bar.value = percent;
}

// The photo's error: `say` makes its text in the page's language (again when the language changes).
function showError(say) {
  state.photoError = say;
  const text = say ? say() : "";
  $("error").hidden = !text;
  $("error").textContent = text;
}

// The server reads photos at most this long; a bigger one is shrunk here first, so a 12 MP
// photo uploads as a few hundred kB over a phone network. Anything the browser cannot
// draw (HEIC on some browsers) goes as it is: the server reads it too.
const UPLOAD_MAX_SIDE = 2048;

async function shrinkPhoto(file) {
  if (!window.createImageBitmap || !file.type.startsWith("image/")) return file;
  let bitmap;
  try {
    bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
  } catch (e) {
    return file;
  }
  const long = Math.max(bitmap.width, bitmap.height);
  if (long <= UPLOAD_MAX_SIDE) { bitmap.close(); return file; }
  const scale = UPLOAD_MAX_SIDE / long;
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(bitmap.width * scale);
  canvas.height = Math.round(bitmap.height * scale);
  const ctx = canvas.getContext("2d");
  ctx.imageSmoothingQuality = "high";
  ctx.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.92));
  return blob ? new File([blob], "photo.jpg", { type: "image/jpeg" }) : file;
}

async function uploadPhoto(original) {
  if (!original) return;
  showError(null);
  showProgress(t("preparing"), null);
  const file = await shrinkPhoto(original);
  showProgress(`${t("uploading")} 0%`, 0);
  const form = new FormData();
  form.append("image", file, file.name || "photo.jpg");
  form.append("rules", state.rules);
  for (const [key, value] of Object.entries(state.context)) form.append(key, String(value));
  if (state.tileset) form.append("tileset", state.tileset);
  const xhr = new XMLHttpRequest();
  xhr.open("POST", `${API}/analyze`);
  xhr.responseType = "json";
  xhr.upload.onprogress = (e) => {
    if (!e.lengthComputable) return;
    const pct = Math.round((100 * e.loaded) / e.total);
    if (pct < 100) showProgress(`${t("uploading")} ${pct}%`, pct);
    else showProgress(t("analyzing"), null);
  };
  xhr.upload.onload = () => showProgress(t("analyzing"), null);
  xhr.onerror = () => { showProgress(null); showError(() => t("network")); };
  xhr.onload = () => {
    showProgress(null);
    const body = xhr.response;
    if (xhr.status !== 200) {
      showError(() => (xhr.status === 503 && body && body.error && body.error.code === "busy" ? t("busy") : errorText(body)));
      return;
    }
    state.analysis = body;
    document.dispatchEvent(new CustomEvent("fanshot:analysed"));
    state.doubts = doubtsOf(body);
    state.leftOut = leftOutOf(body);
    renderAnalysis();
    if (body.hand) {
      loadHand(body.hand);
    } else {
      loadHand({ concealed: (body.tiles || []).map((d) => d.tile).filter((c) => PLAY_TILES.includes(c)) });
      if (body.error) showError(() => errorText(body));
      else if (!(body.tiles || []).length) showError(() => t("no_tiles"));
    }
    changed();
    $("photo").scrollIntoView({ behavior: "smooth", block: "start" });
  };
  xhr.send(form);
}

async function loadRules() {
  try {
    const response = await fetch(`${API}/rules`);
    if (!response.ok) return;
    state.rulesets = (await response.json()).rulesets || [];
    renderRules();
  } catch (e) { /* the page still works with the default rule set */ }
}

// ---------- wiring ----------

function syncContextInputs() {
  for (const flag of CONTEXT_FLAGS) $(`ctx-${flag}`).checked = !!state.context[flag];
  $("ctx-seat_wind").value = state.context.seat_wind;
  $("ctx-prevalent_wind").value = state.context.prevalent_wind;
}

function init() {
  for (const id of ["photo-camera", "photo-gallery"]) {
    $(id).addEventListener("change", (e) => { uploadPhoto(e.target.files[0]); e.target.value = ""; });
  }
  $("manual").addEventListener("click", () => {
    state.analysis = null;
    state.doubts = [];
    state.leftOut = [];
    renderAnalysis();
    loadHand({ concealed: [], melds: [], win_tile: null, flowers: [] });
    changed();
  });
  $("add-meld").addEventListener("click", () => { state.hand.melds.push({ tiles: [], exposed: true }); changed(); });
  $("sheet-close").addEventListener("click", closeSheet);
  $("sheet").addEventListener("click", (e) => { if (e.target === $("sheet")) closeSheet(); });
  $("lang").addEventListener("click", () => {
    state.lang = state.lang === "zh" ? "en" : "zh";
    localStorage.setItem("fanshot.lang", state.lang);
    applyLanguage();
  });
  for (const flag of CONTEXT_FLAGS) {
    $(`ctx-${flag}`).addEventListener("change", (e) => { state.context[flag] = e.target.checked; rescore(); });
  }
  for (const wind of ["seat_wind", "prevalent_wind"]) {
    $(`ctx-${wind}`).addEventListener("change", (e) => { state.context[wind] = e.target.value; rescore(); });
  }
  $("rules").addEventListener("change", (e) => { state.rules = e.target.value; renderExtraFields(); rescore(); });
  applyLanguage();
  syncContextInputs();
  loadRules();
}

window.fanshot = { state };  // for debugging from the console
init();
