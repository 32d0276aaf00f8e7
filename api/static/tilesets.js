// Fanshot phone page: the player's own tile set (docs/tilesets.md). Loaded after app.js, whose page
// state (state, $, API, t, errorText, shrinkPhoto, tileButton, HAND_AREAS) it uses: the chooser
// (remembered here, sent by app.js with each photo as `tileset`), "learn my set" from one photo of
// the set laid out, and a corrected tile of a photo read with the set kept for it.
"use strict";

(() => {
  const SET_TEXT = {
    zh: {
      tileset: "我的牌", learn_set: "学我的牌", no_set: "通用（不用我的牌）", set_name: "名字",
      take_layout: "拍摆好的整套牌",
      learn_intro: "把整套牌每种一张正面朝上摆好，从左到右、从上到下：一到九万、一到九条、一到九饼、东南西北、中发白；" +
        "有花牌就接着摆八张花牌，再放一张背面朝上的牌。一行九张最方便，换行随意。然后从正上方拍一张。",
      learning: "学习中…", learnt: "学会了“{name}”：{n} 张牌，{s} 秒。以后拍照都按这套牌识别。",
      missed: "其中 {n} 张没被找到框，从行里的空位补上了（{tiles}）；拍照时也会在行旁边找这样的牌。",
      leftOut: "照片里另有 {n} 张牌不在排列中，已略过。",
      bad_name: "名字只能用英文字母、数字、- 和 _（最多 40 个）",
      remember: "改牌时记住这套牌（{name}）的样子", remembered: "已记住：“{name}”现有 {n} 个样本",
    },
    en: {
      tileset: "My tiles", learn_set: "Learn my set", no_set: "Generic (no set of mine)", set_name: "Name",
      take_layout: "Photograph the laid-out set",
      learn_intro: "Lay out one of each tile face up, left to right and row by row: characters 1-9, bamboo 1-9, " +
        "dots 1-9, East South West North, Red Green White; then, if the set has them, the eight flowers and one " +
        "tile face down. Nine a row is easiest; rows may wrap anywhere. Then take one photo from above.",
      learning: "Learning…", learnt: "Learnt “{name}”: {n} tiles in {s} s. Photos are now read as this set draws them.",
      missed: "The finder gave {n} of them no box ({tiles}): they were found in the rows' gaps, and photos of this set are searched beside their rows for such tiles.",
      leftOut: "{n} more tile(s) in the photo were no part of the layout and were left out.",
      bad_name: "Use up to 40 letters, digits, - or _ for the name",
      remember: "Remember my corrections for this set ({name})", remembered: "Remembered: “{name}” now holds {n} examples",
    },
  };
  const KEY = "fanshot.tileset";
  const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$/;  // vision/tileset/names.py
  const LAYOUT = PLAY_TILES.concat(FLOWER_TILES, ["BACK"]);
  let names = [];
  let corrected = new Map();  // index in the analysis's tiles -> the tile it was corrected to

  const st = (key, values) => {
    let text = (SET_TEXT[state.lang] || SET_TEXT.zh)[key] ?? SET_TEXT.zh[key] ?? key;
    for (const [name, value] of Object.entries(values || {})) text = text.replace(`{${name}}`, value);
    return text;
  };

  function choose(name) {
    state.tileset = name || "";
    if (state.tileset) localStorage.setItem(KEY, state.tileset);
    else localStorage.removeItem(KEY);
    renderChooser();
  }

  function renderChooser() {
    const select = $("tileset");
    const options = [new Option(st("no_set"), "")].concat(names.map((n) => new Option(n, n)));
    select.replaceChildren(...options);
    select.value = names.includes(state.tileset) ? state.tileset : "";
  }

  async function loadSets() {
    try {
      const response = await fetch(`${API}/tilesets`);
      if (!response.ok) return;
      names = (await response.json()).tilesets.filter((s) => s.summary).map((s) => s.name);
      if (state.tileset && !names.includes(state.tileset)) choose("");  // forgotten on the server
      renderChooser();
    } catch (e) { /* offline: the page reads photos without a set */ }
  }

  function renderLayout() {
    const order = $("layout-order");
    order.replaceChildren(...LAYOUT.map((code) => {
      if (code !== "BACK") return tileButton(code, null, "mini");
      const back = document.createElement("span");
      back.className = "tile mini back";
      return back;
    }));
  }

  function say(id, text) {
    $(id).textContent = text || "";
    $(id).hidden = !text;
  }

  async function learn(original) {
    if (!original) return;
    const name = $("set-name").value.trim() || "my-set";
    if (!NAME.test(name)) { say("learn-result", st("bad_name")); return; }
    say("learn-result", st("learning"));
    const file = await shrinkPhoto(original);
    const form = new FormData();
    form.append("image", file, file.name || "layout.jpg");
    try {
      const response = await fetch(`${API}/tilesets/${encodeURIComponent(name)}/layout`, { method: "POST", body: form });
      const body = await response.json().catch(() => null);
      if (!response.ok) { say("learn-result", errorText(body)); return; }
      const missed = body.learnt.missed ? " " + st("missed", { n: body.learnt.missed, tiles: (body.missed || []).join(" ") }) : "";
      const leftOut = body.learnt.left_out ? " " + st("leftOut", { n: body.learnt.left_out }) : "";
      say("learn-result", st("learnt", { name, n: body.learnt.tiles, s: body.learnt.seconds.toFixed(1) }) + missed + leftOut);
      if (!names.includes(name)) names.push(name);
      choose(name);
      loadSets();
    } catch (e) {
      say("learn-result", t("network"));
    }
  }

  // The analysis's tile a changed hand tile was: one read (or last corrected) as `from`, in the same
  // part of the hand if one is, not one already matched to another hand tile.
  function photoTile(place, from) {
    const tiles = (state.analysis && state.analysis.tiles) || [];
    const free = [];
    tiles.forEach((tile, i) => {
      const now = corrected.has(i) ? corrected.get(i) : tile.tile;
      if (!tile.dropped && tile.box && now === from) free.push(i);
    });
    return free.find((i) => HAND_AREAS[tiles[i].role] === place.where) ?? free[0];
  }

  function renderRemember() {
    const a = state.analysis;
    const on = !!(a && a.photo_id && a.tileset);
    $("remember-row").hidden = !on;
    if (on) $("remember-text").textContent = st("remember", { name: a.tileset });
    if (!on) say("remember-note", null);
  }

  async function remember(event) {
    const a = state.analysis;
    if (!a || !a.photo_id || !a.tileset || !$("remember").checked) return;
    const { place, from, to } = event.detail;
    const i = photoTile(place, from);
    if (i === undefined) return;  // a tile the player added by hand: no crop of it
    corrected.set(i, to);
    try {
      const response = await fetch(`${API}/tilesets/${encodeURIComponent(a.tileset)}/examples`, {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ photo_id: a.photo_id, tiles: [{ tile: to, box: a.tiles[i].box }] }) });
      const body = await response.json().catch(() => null);
      say("remember-note", response.ok ? st("remembered", { name: a.tileset, n: body.examples }) : errorText(body));
    } catch (e) {
      say("remember-note", t("network"));
    }
  }

  function render() {
    for (const el of document.querySelectorAll("[data-ts]")) el.textContent = st(el.dataset.ts);
    renderChooser();
    renderRemember();
  }

  $("tileset").addEventListener("change", (e) => choose(e.target.value));
  $("learn-set").addEventListener("click", () => {
    $("learn").hidden = !$("learn").hidden;
    if (!$("learn").hidden) $("learn").scrollIntoView({ behavior: "smooth", block: "nearest" });
  });
  $("layout-photo").addEventListener("change", (e) => { learn(e.target.files[0]); e.target.value = ""; });
  document.addEventListener("fanshot:analysed", () => {
    corrected = new Map();
    if (state.analysis) state.analysis.tileset = state.analysis.photo_id ? state.tileset : null;  // the set it was read with
    renderRemember();
  });
  document.addEventListener("fanshot:tile-changed", remember);
  $("manual").addEventListener("click", renderRemember);
  $("lang").addEventListener("click", render);
  renderLayout();
  render();
  loadSets();
})();
