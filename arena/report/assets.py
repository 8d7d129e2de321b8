"""The report page's own style sheet and script, inlined into every report.

The script reads the games from the page's JSON block and draws one game's board
at a time; it builds every element with `textContent`, never from HTML strings,
so no name from the data can become markup. It fetches nothing.
"""

from __future__ import annotations

STYLE = """
:root { --ink: #1d2330; --muted: #667085; --line: #e4e7ec; --paper: #ffffff;
  --wash: #f5f7fa; --accent: #0072b2;
  --red: #d72600; --yellow: #e8c300; --green: #379711; --blue: #0956bf; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--ink); background: var(--wash); }
header { background: #1d2330; color: #fff; padding: 18px 28px 14px; }
header h1 { margin: 0 0 4px; font-size: 22px; font-weight: 650; }
header .facts { color: #c5cbd6; font-size: 13px; }
nav { display: flex; gap: 16px; padding: 8px 28px; background: #262d3d; font-size: 13px; }
nav a { color: #dfe6f3; text-decoration: none; }
nav a:hover { text-decoration: underline; }
main { max-width: 1100px; margin: 0 auto; padding: 8px 20px 40px; }
section { background: var(--paper); border: 1px solid var(--line); border-radius: 10px;
  padding: 14px 18px 16px; margin: 16px 0; }
h2 { font-size: 16px; margin: 0 0 10px; }
h3 { font-size: 14px; margin: 14px 0 6px; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 4px 10px; text-align: right; border-bottom: 1px solid var(--line); }
th { font-weight: 600; color: var(--muted); font-size: 12px; }
td.name, th.name { text-align: left; }
tr:last-child td { border-bottom: none; }
.note, .muted { color: var(--muted); }
.note { font-size: 13px; margin: 8px 0 0; }
.bot { font-weight: 600; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px;
  margin-right: 6px; vertical-align: baseline; }
.cross td.cell { min-width: 92px; }
.cross td.self { background: var(--wash); }
.cross .wld { display: block; font-size: 11px; color: var(--muted); }
.bad { color: var(--red); font-weight: 600; }
.games td button { font-size: 12px; }
.viewer { border: 1px solid var(--line); border-radius: 10px; background: #0f5132;
  background: radial-gradient(ellipse at center, #1f7a4d 0%, #135c39 70%, #0e4a2e 100%);
  color: #fff; padding: 12px 16px 16px; margin-bottom: 14px; }
.controls { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
.controls button, .controls select { font: inherit; padding: 3px 10px; border-radius: 6px;
  border: 1px solid #0b3d24; background: #f5f7fa; color: var(--ink); cursor: pointer; }
.controls input[type=range] { flex: 1; min-width: 160px; }
.step { font-size: 12px; color: #cfe8da; min-width: 80px; }
.event { font-size: 15px; font-weight: 600; margin: 10px 0 8px; min-height: 22px; }
.board { display: grid; grid-template-columns: 1fr auto; gap: 16px; align-items: start; }
.seats { display: flex; flex-wrap: wrap; gap: 10px; }
.seat { background: rgba(0,0,0,0.22); border: 2px solid transparent; border-radius: 10px;
  padding: 8px 10px; min-width: 150px; }
.seat.to-act { border-color: #ffd84d; box-shadow: 0 0 0 2px rgba(255,216,77,0.3); }
.seat.actor { background: rgba(255,255,255,0.16); }
.seat.out { opacity: 0.45; }
.seat .who { font-weight: 650; }
.seat .meta { font-size: 12px; color: #cfe8da; }
.fan { display: flex; margin-top: 6px; min-height: 30px; align-items: center; }
.back { width: 16px; height: 24px; border-radius: 3px; margin-right: -8px;
  background: repeating-linear-gradient(45deg, #b3261e, #b3261e 3px, #8e1b15 3px, #8e1b15 6px);
  border: 1px solid #fff; }
.fan .more { margin-left: 14px; font-size: 12px; color: #cfe8da; }
.count { margin-left: 14px; font-weight: 650; }
.centre { text-align: center; min-width: 150px; }
.card { display: inline-flex; align-items: center; justify-content: center; width: 56px;
  height: 84px; border-radius: 8px; border: 3px solid #fff; font-weight: 800; font-size: 22px;
  color: #fff; text-shadow: 0 1px 2px rgba(0,0,0,0.5); box-shadow: 0 2px 6px rgba(0,0,0,0.35); }
.card.small { width: 26px; height: 38px; font-size: 11px; border-width: 2px; border-radius: 4px;
  margin: 2px 2px 0 0; }
.card.red { background: var(--red); } .card.yellow { background: var(--yellow); }
.card.green { background: var(--green); } .card.blue { background: var(--blue); }
.card.wild { background: conic-gradient(var(--red) 0 25%, var(--yellow) 0 50%,
  var(--green) 0 75%, var(--blue) 0); }
.card.none { background: rgba(0,0,0,0.25); border-style: dashed; }
.in-play { margin-top: 8px; font-size: 13px; }
.dot { display: inline-block; width: 12px; height: 12px; border-radius: 50%;
  vertical-align: -1px; margin-right: 4px; border: 1px solid #fff; }
.dot.red { background: var(--red); } .dot.yellow { background: var(--yellow); }
.dot.green { background: var(--green); } .dot.blue { background: var(--blue); }
.revealed { display: flex; flex-wrap: wrap; margin-top: 4px; }
"""

SCRIPT = """
(function () {
  "use strict";
  var games = JSON.parse(document.getElementById("games-data").textContent);
  var byId = {};
  games.forEach(function (g) { byId[g.id] = g; });
  var view = document.getElementById("viewer");
  if (!view || games.length === 0) { return; }
  var pick = view.querySelector("select");
  var slider = view.querySelector("input[type=range]");
  var stepText = view.querySelector(".step");
  var eventText = view.querySelector(".event");
  var seatsBox = view.querySelector(".seats");
  var centre = view.querySelector(".centre");
  var game = games[0], index = 0;
  var COLOURS = { R: "red", Y: "yellow", G: "green", B: "blue" };
  var LABELS = { S: "\\u2298", R: "\\u21c4", "+2": "+2", W: "W", "W+4": "+4",
                 WSH: "\\u21bb", WC: "\\u2605" };

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined) { node.textContent = text; }
    return node;
  }
  function card(short, small) {
    var colour = COLOURS[short.charAt(0)] && short.length > 1 ? COLOURS[short.charAt(0)] : "wild";
    var rank = colour === "wild" ? short : short.slice(1);
    var node = el("span", "card " + colour + (small ? " small" : ""),
                  LABELS[rank] !== undefined ? LABELS[rank] : rank);
    node.title = short;
    return node;
  }
  function fan(count) {
    var box = el("div", "fan"), shown = Math.min(count, 12);
    for (var i = 0; i < shown; i++) { box.appendChild(el("span", "back")); }
    box.appendChild(el("span", "count", String(count)));
    if (count > shown) { box.appendChild(el("span", "more", "cards")); }
    return box;
  }
  function draw() {
    var frame = game.frames[index];
    slider.max = String(Math.max(game.frames.length - 1, 0));
    slider.value = String(index);
    stepText.textContent = game.frames.length ?
      "step " + (index + 1) + " of " + game.frames.length : "no replay";
    seatsBox.replaceChildren();
    centre.replaceChildren();
    if (!frame) { eventText.textContent = game.problem || "no events"; return; }
    eventText.textContent = frame.t;
    game.seats.forEach(function (name, seat) {
      var box = el("div", "seat");
      box.dataset.seat = String(seat);
      if (frame.n === seat) { box.classList.add("to-act"); }
      if (frame.a === seat) { box.classList.add("actor"); }
      if (frame.el && frame.el.indexOf(seat) >= 0) { box.classList.add("out"); }
      box.appendChild(el("div", "who", name));
      var meta = "seat " + seat + (game.teams ? " \\u00b7 team " + (game.teams[seat] + 1) : "") +
        " \\u00b7 " + frame.sc[seat] + " points";
      if (frame.n === seat) { meta += " \\u00b7 to " + frame.p.split("_").join(" "); }
      box.appendChild(el("div", "meta", meta));
      box.appendChild(fan(frame.c[seat]));
      if (frame.rev && frame.rev[seat] && frame.rev[seat].length) {
        var open = el("div", "revealed");
        frame.rev[seat].forEach(function (c) { open.appendChild(card(c, true)); });
        box.appendChild(open);
      }
      seatsBox.appendChild(box);
    });
    centre.appendChild(frame.top ? card(frame.top, false) : el("span", "card none", "?"));
    var play = el("div", "in-play");
    if (frame.col) {
      play.appendChild(el("span", "dot " + frame.col));
      play.appendChild(document.createTextNode(frame.col + " in play"));
    } else {
      play.textContent = "no colour yet";
    }
    centre.appendChild(play);
    centre.appendChild(el("div", "in-play",
      (frame.d === 1 ? "\\u21bb clockwise" : "\\u21ba counter-clockwise") +
      (frame.h ? " \\u00b7 hand " + frame.h : "")));
  }
  function go(to) {
    index = Math.max(0, Math.min(to, game.frames.length - 1));
    draw();
  }
  function expand(g) {
    if (g.expanded) { return; }
    var previous = {};
    g.frames = g.frames.map(function (change) {
      previous = Object.assign({}, previous, { rev: null }, change);
      return previous;
    });
    g.expanded = true;
  }
  function show(id) {
    game = byId[id] || games[0];
    expand(game);
    pick.value = String(game.id);
    go(0);
  }
  view.querySelector("[data-go=first]").addEventListener("click", function () { go(0); });
  view.querySelector("[data-go=prev]").addEventListener("click", function () { go(index - 1); });
  view.querySelector("[data-go=next]").addEventListener("click", function () { go(index + 1); });
  view.querySelector("[data-go=last]").addEventListener("click", function () {
    go(game.frames.length - 1); });
  slider.addEventListener("input", function () { go(Number(slider.value)); });
  pick.addEventListener("change", function () { show(pick.value); });
  document.querySelectorAll("button[data-game]").forEach(function (button) {
    button.addEventListener("click", function () {
      show(button.dataset.game);
      view.scrollIntoView({ block: "start" });
    });
  });
  document.addEventListener("keydown", function (e) {
    var tag = e.target && e.target.tagName;
    if (tag === "SELECT" || tag === "INPUT") { return; }
    if (e.key === "ArrowRight") { go(index + 1); }
    if (e.key === "ArrowLeft") { go(index - 1); }
  });
  show(games[0].id);
})();
"""
