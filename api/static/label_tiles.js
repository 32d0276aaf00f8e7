// Small pictures of the 43 tile classes for the labelling page's palette, drawn as inline SVG:
// dots as circles, bamboo as sticks, characters and honours as text in the system's CJK font.
// window.FanshotTiles.picture(code) returns an <svg role="img" aria-label="code">;
// .button(cls, onPick) the palette's button of a class of /api/v1/label/classes.
"use strict";
(() => {
  const NS = "http://www.w3.org/2000/svg";
  const W = 30, H = 40;  // the picture's view box: a tile standing up
  const INK = { blue: "#1f4e9c", green: "#1e7a3c", red: "#c62828", dark: "#222" };
  const NUMERALS = "一二三四五六七八九";
  const HONOURS = {
    F1: ["东", INK.dark], F2: ["南", INK.dark], F3: ["西", INK.dark], F4: ["北", INK.dark],
    J1: ["中", INK.red], J2: ["发", INK.green],
  };
  const FLOWERS = "春夏秋冬梅兰竹菊";  // H1..H4 seasons, H5..H8 flowers

  // Where the dots of 1..9 dots sit (x, y in the view box) and their radius.
  const DOTS = {
    1: [[[15, 20]], 9],
    2: [[[15, 11], [15, 29]], 6],
    3: [[[8, 9], [15, 20], [22, 31]], 5],
    4: [[[9, 12], [21, 12], [9, 28], [21, 28]], 5],
    5: [[[8, 9], [22, 9], [15, 20], [8, 31], [22, 31]], 4.5],
    6: [[[9, 9], [21, 9], [9, 20], [21, 20], [9, 31], [21, 31]], 4.5],
    7: [[[7, 7], [15, 11], [23, 15], [9, 24], [21, 24], [9, 33], [21, 33]], 3.6],
    8: [[[9, 7], [21, 7], [9, 15.7], [21, 15.7], [9, 24.3], [21, 24.3], [9, 33], [21, 33]], 3.6],
    9: [[[7, 9], [15, 9], [23, 9], [7, 20], [15, 20], [23, 20], [7, 31], [15, 31], [23, 31]], 3.6],
  };
  const DOT_COLOURS = [INK.blue, INK.green, INK.red];

  // Where the sticks of 1..9 bamboo stand (centre x, y); the red ones are index lists.
  const STICKS = {
    1: [[[15, 20]], []],
    2: [[[15, 12], [15, 28]], []],
    3: [[[15, 12], [9, 28], [21, 28]], []],
    4: [[[9, 12], [21, 12], [9, 28], [21, 28]], []],
    5: [[[8, 12], [22, 12], [15, 20], [8, 28], [22, 28]], [2]],
    6: [[[7, 12], [15, 12], [23, 12], [7, 28], [15, 28], [23, 28]], []],
    7: [[[15, 8], [7, 20], [15, 20], [23, 20], [7, 32], [15, 32], [23, 32]], [0]],
    8: [[[6, 12], [12, 12], [18, 12], [24, 12], [6, 28], [12, 28], [18, 28], [24, 28]], []],
    9: [[[7, 8], [15, 8], [23, 8], [7, 20], [15, 20], [23, 20], [7, 32], [15, 32], [23, 32]], [1, 4, 7]],
  };

  function el(name, attrs, text) {
    const node = document.createElementNS(NS, name);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function glyph(text, x, y, size, fill) {
    return el("text", { x, y, "font-size": size, fill, "text-anchor": "middle", "dominant-baseline": "central",
      "font-family": '"Noto Sans CJK SC", "Noto Sans CJK JP", "Source Han Sans SC", sans-serif' }, text);
  }

  function dots(n) {
    const [centres, r] = DOTS[n];
    return centres.map(([x, y], i) => {
      const fill = n === 1 ? INK.red : DOT_COLOURS[(i + n) % 3];
      const g = el("g", {});
      g.append(el("circle", { cx: x, cy: y, r, fill: "none", stroke: fill, "stroke-width": r / 3 }),
        el("circle", { cx: x, cy: y, r: r / 3, fill }));
      return g;
    });
  }

  function sticks(n) {
    const [centres, red] = STICKS[n];
    const length = n === 1 ? 26 : n === 2 ? 14 : 10;
    const width = n === 1 ? 6 : n >= 6 ? 3.4 : 4;
    return centres.map(([x, y], i) => {
      const fill = red.includes(i) ? INK.red : INK.green;
      const g = el("g", {});
      g.append(el("rect", { x: x - width / 2, y: y - length / 2, width, height: length, rx: width / 2, fill }),
        el("line", { x1: x - width / 2, x2: x + width / 2, y1: y, y2: y, stroke: "#fff", "stroke-width": 0.8 }));
      return g;
    });
  }

  // The face of a tile: what is drawn on the ivory for `code`, as SVG nodes.
  function face(code) {
    const suit = code[0], n = Number(code.slice(1));
    if (code === "BACK") return [el("rect", { x: 3.5, y: 3.5, width: W - 7, height: H - 7, rx: 2.5, fill: "#2f7d5b" })];
    if (suit === "W") return [glyph(NUMERALS[n - 1], 15, 12, 13, INK.dark), glyph("萬", 15, 29, 14, INK.red)];
    if (suit === "B") return dots(n);
    if (suit === "T") return sticks(n);
    if (code === "J3") return [el("rect", { x: 6, y: 8, width: W - 12, height: H - 16, fill: "none", stroke: INK.blue, "stroke-width": 2 })];
    if (HONOURS[code]) return [glyph(HONOURS[code][0], 15, 20, 20, HONOURS[code][1])];
    if (suit === "H") {
      const colour = n <= 4 ? INK.green : INK.red;
      return [glyph(FLOWERS[n - 1], 15, 22, 17, colour), glyph(String(((n - 1) % 4) + 1), 6.5, 7, 7, INK.blue)];
    }
    return [glyph("?", 15, 20, 18, INK.dark)];
  }

  function picture(code) {
    const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": code, class: "tile-picture" });
    svg.dataset.code = code;
    svg.append(el("rect", { x: 0.75, y: 0.75, width: W - 1.5, height: H - 1.5, rx: 3.5, fill: "#fbf8ef", stroke: "#8a8576", "stroke-width": 1.5 }),
      ...face(code));
    return svg;
  }

  // A palette button: the class's picture and code, its name and keys in the tooltip.
  function button(cls, onPick) {
    const el = document.createElement("button");
    el.type = "button";
    el.dataset.code = cls.code;
    el.title = `${cls.code} · ${cls.name} ${cls.zh} — type ${cls.keys.join(" or ")}`;
    const code = document.createElement("span");  // the picture's label already names it
    code.className = "code";
    code.setAttribute("aria-hidden", "true");
    code.textContent = cls.code;
    el.append(picture(cls.code), code);
    el.addEventListener("click", onPick);
    return el;
  }

  window.FanshotTiles = Object.freeze({ picture, button });
})();
