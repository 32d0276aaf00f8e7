// Fanshot labelling page: fix the detector's boxes, one image after another.
// Every change is sent at once (PUT /api/v1/label/labels) and written as YOLO txt
// by the server; undo asks the server, which keeps the history beside the labels.
"use strict";
(() => {
  const API = "/api/v1/label";
  const LOW_SCORE = 0.6;          // boxes under this detector score are drawn red
  const AMBIGUOUS_WAIT_MS = 900;  // "W" or "F" alone: wait this long for a digit
  const MIN_BOX_PX = 4;           // a drag shorter than this draws no box
  const REMEMBER_KEY = "fanshot.label.remember";  // "no": corrected tiles are not added to the tile set

  const $ = (id) => document.getElementById(id);
  const state = {
    classes: [], keys: new Map(), images: [], index: -1, doc: null, selected: -1,
    currentTile: "W1", typed: "", typedTimer: null, saveChain: Promise.resolve(), saveSeq: 0, moving: false,
    versions: {}, // path -> the version of its labels this page last had from the server
  };

  // --- server ----------------------------------------------------------------------

  async function api(method, path, body) {
    const options = { method, headers: {} };
    if (body instanceof FormData) options.body = body;
    else if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    const response = await fetch(API + path, options);
    const data = await response.json().catch(() => ({}));
    if (!response.ok) {
      const error = new Error((data.error && data.error.message) || `HTTP ${response.status}`);
      error.status = response.status;
      throw error;
    }
    return data;
  }
  const q = (path) => "?path=" + encodeURIComponent(path);

  function say(text) { $("message").textContent = text || ""; }
  function saveState(text, isError) {
    const el = $("save-state");
    el.textContent = text;
    el.classList.toggle("error", !!isError);
  }

  // Saves run one after another; only the answer to the latest one replaces the page's boxes.
  function save() {
    const doc = state.doc;
    const seq = ++state.saveSeq;
    const boxes = doc.boxes.map((b) => ({ tile: b.tile, box: b.box.map((v) => Math.round(v * 100) / 100), score: b.score }));
    const keep = state.selected >= 0 ? doc.boxes[state.selected] : null;
    saveState("saving…");
    state.saveChain = state.saveChain.then(async () => {
      try {
        // sent with the version it was made on: a change made meanwhile elsewhere (another page or
        // server) is answered 409, not overwritten; opening the image again shows it
        const fresh = await api("PUT", "/labels" + q(doc.path) + (remembering() ? "" : "&remember=false"),
          { boxes, version: state.versions[doc.path] });
        state.versions[fresh.path] = fresh.version;
        if (seq === state.saveSeq && state.doc && state.doc.path === fresh.path) {
          adopt(fresh, keep);
          const kept = fresh.tileset;  // the tiles corrected, added to the server's tile set
          if (!kept) saveState("saved");
          else if (kept.error) saveState(`saved, but not kept for the set ${kept.name}: ${kept.error}`, true);
          else saveState(`saved · ${kept.added} corrected tile${kept.added === 1 ? "" : "s"} kept for the set ${kept.name}`);
        }
      } catch (error) {
        saveState("not saved: " + error.message, true);
      }
    });
    return state.saveChain;
  }

  // Show an image's new box count, lowest score and checked state in the list.
  function noteInList(doc) {
    state.versions[doc.path] = doc.version;
    const entry = state.images.find((im) => im.path === doc.path);
    if (!entry) return;
    const scores = doc.boxes.map((b) => b.score).filter((v) => v != null);
    Object.assign(entry, { labelled: doc.labelled, reviewed: doc.reviewed, boxes: doc.boxes.length,
      min_score: scores.length ? Math.min(...scores) : null });
    renderList();
  }

  // Take the server's version of the labels, keeping the same box selected when it is still there.
  function adopt(doc, keep) {
    noteInList(doc);
    state.doc = doc;
    state.selected = -1;
    if (keep) {
      state.selected = doc.boxes.findIndex((b) => b.tile === keep.tile &&
        b.box.every((v, i) => Math.abs(v - keep.box[i]) < 1.5));
    }
    render();
  }

  // --- images ----------------------------------------------------------------------

  // With a server started with a tile set (fanshot label DIR --tileset NAME), corrected tiles are
  // added to it unless the person unticks "remember" (REMEMBER_KEY).
  function remembering() { return $("remember-row").hidden || $("remember").checked; }

  async function refreshList() {
    const data = await api("GET", "/images");
    state.images = data.images;
    $("remember-row").hidden = !data.tileset;
    $("tileset-name").textContent = data.tileset || "";
    orderImages();
  }

  // "name": folder order; "doubt": unchecked images first, the least confident of them first.
  function orderImages() {
    const current = state.images[state.index];
    if ($("order").value === "doubt") {
      const key = (im) => [im.reviewed ? 1 : 0, im.min_score == null ? 2 : im.min_score];
      state.images.sort((a, b) => {
        const ka = key(a), kb = key(b);
        return ka[0] - kb[0] || ka[1] - kb[1] || a.path.localeCompare(b.path);
      });
    } else {
      state.images.sort((a, b) => a.path.localeCompare(b.path));
    }
    state.index = current ? state.images.indexOf(current) : -1;
    renderList();
  }

  function renderList() {
    const list = $("image-list");
    list.replaceChildren();
    state.images.forEach((image, i) => {
      const li = document.createElement("li");
      li.dataset.path = image.path;
      li.className = (i === state.index ? "current " : "") + (image.reviewed ? "reviewed" : "");
      const name = document.createElement("span");
      name.textContent = image.path;
      const info = document.createElement("span");
      info.className = "state";
      info.textContent = !image.labelled ? "new" : image.reviewed ? `✓ ${image.boxes}`
        : `${image.boxes} · ${image.min_score == null ? "–" : image.min_score.toFixed(2)}`;
      li.append(name, info);
      li.addEventListener("click", () => openImage(i));
      list.append(li);
    });
    const done = state.images.filter((im) => im.reviewed).length;
    $("progress").textContent = `${done} / ${state.images.length} checked`;
  }

  async function openImage(i) {
    if (i < 0 || i >= state.images.length) return;
    await state.saveChain;
    const path = state.images[i].path;
    state.index = i;
    clearTyped();
    say("");
    saveState("");
    $("image-name").textContent = path;
    renderList();
    try {
      const doc = await api("GET", "/labels" + q(path));
      if (state.images[state.index].path !== path) return; // another image was opened meanwhile
      state.doc = doc;
      state.selected = doc.boxes.length ? 0 : -1; // the least confident box first
      $("photo").src = API + "/image" + q(path);
      history.replaceState(null, "", "#" + encodeURIComponent(path));
      if (doc.warnings.length) say(doc.warnings.join("; "));
      render();
      noteInList(doc);
      prelabelAhead(i + 1);
    } catch (error) {
      state.doc = null;
      render();
      say(`${path}: ${error.message}`);
    }
  }

  // Ask for the next image's pre-labels now, so they are ready when the person gets there.
  function prelabelAhead(i) {
    const next = state.images[i];
    if (next && !next.labelled) api("GET", "/labels" + q(next.path)).then(() => { next.labelled = true; }).catch(() => {});
  }

  // One move at a time: a double click or a held key would otherwise skip an image or check it unseen.
  async function nextImage(step) {
    if (state.moving) return;
    state.moving = true;
    try {
      if (!state.doc) return await openImage(state.index + step);
      await state.saveChain;
      if (step > 0) {
        try {
          await api("POST", "/reviewed" + q(state.doc.path));
          state.images[state.index].reviewed = true;
        } catch (error) { say(error.message); }
      }
      if (state.index + step >= state.images.length) { renderList(); say("That was the last image."); return; }
      await openImage(state.index + step);
    } finally {
      state.moving = false;
    }
  }

  // The "Mark checked · next" button: Enter's move, in one click even while a tile is being typed
  // (that tile is set and saved first). The keys keep working: focus goes back to the image.
  function markCheckedAndNext() {
    if (state.typed) commitTyped();
    $("stage").focus();
    nextImage(1);
  }

  async function undo() {
    if (!state.doc) return;
    await state.saveChain;
    try {
      const doc = await api("POST", "/undo" + q(state.doc.path));
      state.saveSeq++;
      adopt(doc, null);
      state.selected = doc.boxes.length ? 0 : -1;
      render();
      saveState("undone");
    } catch (error) {
      say(error.status === 409 ? "Nothing to undo." : error.message);
    }
  }

  async function upload(files) {
    for (const file of files) {
      const form = new FormData();
      form.append("file", file);
      try {
        const data = await api("POST", "/images", form);
        say(`added ${data.path}`);
      } catch (error) {
        say(`${file.name}: ${error.message}`);
      }
    }
    await refreshList();
    if (state.index < 0 && state.images.length) openImage(0);
  }

  // --- boxes -----------------------------------------------------------------------

  const classByCode = (code) => state.classes.find((c) => c.code === code);

  function render() {
    const layer = $("boxes");
    layer.replaceChildren();
    const doc = state.doc;
    if (!doc) { $("selection").textContent = ""; return; }
    doc.boxes.forEach((b, i) => {
      const el = document.createElement("div");
      el.className = "box" + (b.score == null ? " checked" : b.score < LOW_SCORE ? " low" : "") +
        (i === state.selected ? " selected" : "");
      el.dataset.index = i;
      el.dataset.tile = b.tile;
      place(el, b.box);
      const tag = document.createElement("span");
      tag.className = "tag";
      const cls = classByCode(b.tile);
      tag.textContent = `${cls ? cls.zh : ""} ${b.tile}` + (b.score == null ? "" : ` ${b.score.toFixed(2)}`);
      el.append(tag);
      for (const corner of ["nw", "ne", "sw", "se"]) {
        const handle = document.createElement("span");
        handle.className = "handle " + corner;
        handle.dataset.corner = corner;
        el.append(handle);
      }
      layer.append(el);
    });
    const b = doc.boxes[state.selected];
    $("selection").textContent = b
      ? `box ${state.selected + 1}/${doc.boxes.length}: ${b.tile}` + (b.score == null ? " (checked)" : ` score ${b.score.toFixed(2)}`)
      : `${doc.boxes.length} boxes · new boxes: ${state.currentTile}`;
    for (const button of $("palette").children) {
      button.classList.toggle("current", button.dataset.code === (b ? b.tile : state.currentTile));
    }
  }

  function place(el, box) {
    const { width, height } = state.doc;
    el.style.left = (100 * box[0] / width) + "%";
    el.style.top = (100 * box[1] / height) + "%";
    el.style.width = (100 * (box[2] - box[0]) / width) + "%";
    el.style.height = (100 * (box[3] - box[1]) / height) + "%";
  }

  function select(i) {
    if (!state.doc || !state.doc.boxes.length) return;
    const n = state.doc.boxes.length;
    state.selected = ((i % n) + n) % n;
    render();
  }

  function setTile(code) {
    state.currentTile = code;
    const b = state.doc && state.doc.boxes[state.selected];
    if (!b) { render(); return; }
    b.tile = code;
    b.score = null; // a person has checked this box
    // Go on to the least confident box nobody has checked yet.
    const next = state.doc.boxes.findIndex((x) => x.score != null);
    const chosen = next >= 0 ? state.doc.boxes[next] : b;
    save();
    state.selected = state.doc.boxes.indexOf(chosen);
    render();
    keepSelectionAfterSave(chosen);
  }

  // After a save the server reorders the boxes; keep the box the person is on selected.
  function keepSelectionAfterSave(box) {
    const seq = state.saveSeq;
    state.saveChain.then(() => {
      if (seq !== state.saveSeq || !state.doc) return;
      const i = state.doc.boxes.findIndex((b) => b.tile === box.tile &&
        b.box.every((v, k) => Math.abs(v - box.box[k]) < 1.5));
      if (i >= 0) { state.selected = i; render(); }
    });
  }

  function deleteSelected() {
    if (!state.doc || state.selected < 0) return;
    state.doc.boxes.splice(state.selected, 1);
    state.selected = Math.min(state.selected, state.doc.boxes.length - 1);
    render();
    save();
  }

  // --- typing a class ------------------------------------------------------------------

  function clearTyped() {
    clearTimeout(state.typedTimer);
    state.typed = "";
    $("typed").textContent = "";
  }

  function typeKey(ch) {
    clearTimeout(state.typedTimer);
    state.typed += ch.toUpperCase();
    resolveTyped(true);
  }

  function resolveTyped(mayRetry) {
    const typed = state.typed;
    const exact = state.keys.get(typed);
    const longer = [...state.keys.keys()].some((k) => k.length > typed.length && k.startsWith(typed));
    if (exact && !longer) { clearTyped(); setTile(exact); return; }
    if (exact) {
      $("typed").textContent = typed;
      state.typedTimer = setTimeout(() => { clearTyped(); setTile(exact); }, AMBIGUOUS_WAIT_MS);
      return;
    }
    if (longer) { $("typed").textContent = typed; return; }
    if (mayRetry && typed.length > 1) { state.typed = typed.slice(-1); resolveTyped(false); return; }
    clearTyped();
    say(`no tile is typed "${typed}" (see Keys)`);
  }

  function commitTyped() {
    const exact = state.keys.get(state.typed);
    clearTyped();
    if (exact) setTile(exact);
  }

  // --- mouse: draw, move, resize --------------------------------------------------------

  function imagePoint(event) {
    const rect = $("photo").getBoundingClientRect();
    const { width, height } = state.doc;
    return [
      Math.min(Math.max((event.clientX - rect.left) / rect.width * width, 0), width),
      Math.min(Math.max((event.clientY - rect.top) / rect.height * height, 0), height),
    ];
  }

  let drag = null;

  function onPointerDown(event) {
    if (!state.doc || event.button !== 0) return;
    event.preventDefault();
    $("stage").focus();
    const [x, y] = imagePoint(event);
    const boxEl = event.target.closest(".box");
    if (boxEl) {
      const i = Number(boxEl.dataset.index);
      state.selected = i;
      const b = state.doc.boxes[i];
      drag = { kind: event.target.dataset.corner || "move", index: i, start: [x, y], orig: b.box.slice(), moved: false };
    } else {
      const b = { tile: state.currentTile, box: [x, y, x, y], score: null };
      state.doc.boxes.push(b);
      state.selected = state.doc.boxes.length - 1;
      drag = { kind: "se", index: state.selected, start: [x, y], orig: [x, y, x, y], moved: false, isNew: true };
    }
    $("stage").setPointerCapture(event.pointerId);
    render();
  }

  function onPointerMove(event) {
    if (!drag) return;
    const [x, y] = imagePoint(event);
    const dx = x - drag.start[0], dy = y - drag.start[1];
    const o = drag.orig;
    const b = state.doc.boxes[drag.index];
    const { width, height } = state.doc;
    if (drag.kind === "move") {
      const mx = Math.min(Math.max(dx, -o[0]), width - o[2]);
      const my = Math.min(Math.max(dy, -o[1]), height - o[3]);
      b.box = [o[0] + mx, o[1] + my, o[2] + mx, o[3] + my];
    } else {
      const box = o.slice();
      if (drag.kind.includes("w")) box[0] = o[0] + dx; else box[2] = o[2] + dx;
      if (drag.kind.includes("n")) box[1] = o[1] + dy; else box[3] = o[3] + dy;
      b.box = [Math.min(box[0], box[2]), Math.min(box[1], box[3]), Math.max(box[0], box[2]), Math.max(box[1], box[3])];
    }
    drag.moved = drag.moved || Math.abs(dx) > 1 || Math.abs(dy) > 1;
    const el = $("boxes").children[drag.index];
    if (el) place(el, b.box);
  }

  function onPointerUp() {
    if (!drag) return;
    const d = drag;
    drag = null;
    const b = state.doc.boxes[d.index];
    if (d.isNew && (b.box[2] - b.box[0] < MIN_BOX_PX || b.box[3] - b.box[1] < MIN_BOX_PX)) {
      state.doc.boxes.splice(d.index, 1); // a click on the image: deselect
      state.selected = -1;
      render();
      return;
    }
    if (!d.isNew && (b.box[2] - b.box[0] < MIN_BOX_PX || b.box[3] - b.box[1] < MIN_BOX_PX)) {
      b.box = d.orig.slice(); // a resize that squashes the box to a line is undone, not saved
      render();
      return;
    }
    if (!d.moved) { render(); return; }
    b.score = null;
    render();
    save();
    keepSelectionAfterSave(b);
  }

  // --- keyboard ----------------------------------------------------------------------------

  function onKey(event) {
    if ($("help").open || event.target.matches("input, textarea, select")) return;
    if ((event.key === "Enter" || event.key === " ") && event.target.matches("button, a")) return;
    const key = event.key;
    if ((event.ctrlKey || event.metaKey) && key.toLowerCase() === "z") { event.preventDefault(); undo(); return; }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (key === "Tab") { event.preventDefault(); select(state.selected + (event.shiftKey ? -1 : 1)); return; }
    if (key === "ArrowRight") { event.preventDefault(); select(state.selected + 1); return; }
    if (key === "ArrowLeft") { event.preventDefault(); select(state.selected - 1); return; }
    if (key === "Enter") { event.preventDefault(); if (state.typed) commitTyped(); else nextImage(1); return; }
    if (key === "PageDown") { event.preventDefault(); nextImage(1); return; }
    if (key === "PageUp") { event.preventDefault(); nextImage(-1); return; }
    if (key === "Escape") { if (state.typed) clearTyped(); else { state.selected = -1; render(); } return; }
    if (key === "Backspace" && state.typed) { state.typed = state.typed.slice(0, -1); $("typed").textContent = state.typed; return; }
    if (key === "Delete" || key === "Backspace") { event.preventDefault(); deleteSelected(); return; }
    if (/^[0-9a-zA-Z]$/.test(key)) { event.preventDefault(); typeKey(key); }
  }

  // --- start -------------------------------------------------------------------------------

  function buildPalette() {
    for (const cls of state.classes) {
      $("palette").append(window.FanshotTiles.button(cls, () => { setTile(cls.code); $("stage").focus(); }));
    }
  }

  async function start() {
    document.addEventListener("keydown", onKey);
    const stage = $("stage");
    stage.addEventListener("pointerdown", onPointerDown);
    stage.addEventListener("pointermove", onPointerMove);
    stage.addEventListener("pointerup", onPointerUp);
    stage.addEventListener("pointercancel", onPointerUp);
    $("upload").addEventListener("change", (event) => upload([...event.target.files]));
    $("help-button").addEventListener("click", () => $("help").showModal());
    $("next-button").addEventListener("click", markCheckedAndNext);
    for (const link of document.querySelectorAll(".export a")) {
      link.addEventListener("click", (event) => {
        if (!state.images.some((im) => im.labelled)) { event.preventDefault(); say("Nothing is labelled yet: open an image first."); }
      });
    }
    $("order").addEventListener("change", () => { orderImages(); $("order").blur(); });
    $("remember").checked = localStorage.getItem(REMEMBER_KEY) !== "no";
    $("remember").addEventListener("change", () => {
      localStorage.setItem(REMEMBER_KEY, $("remember").checked ? "yes" : "no");
      $("remember").blur();  // the page's keys stay the page's
    });
    try {
      const data = await api("GET", "/classes");
      state.classes = data.classes;
      for (const cls of state.classes) for (const key of cls.keys) state.keys.set(key.toUpperCase(), cls.code);
      buildPalette();
      await refreshList();
    } catch (error) {
      say(error.message);
      return;
    }
    if (!state.images.length) { say("No images in the folder yet: add some with “Add images”."); return; }
    const wanted = decodeURIComponent(location.hash.slice(1));
    let i = state.images.findIndex((im) => im.path === wanted);
    if (i < 0) i = Math.max(0, state.images.findIndex((im) => !im.reviewed));
    openImage(i);
  }

  start();
})();
