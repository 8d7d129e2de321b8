// arena's web front: the few things that need a script. Every page works without it.
// - Parts marked data-live="URL" (an HTML fragment of this site) show what the server
//   says changed (data-on: "game", "tables"): the event stream sends each such part
//   again, as it is now, after the update. A part with data-on "poll" is fetched again
//   from URL every second while a build goes on.
// - A game's replay gets a stepper; a game in play is followed as it is played.
"use strict";

(function () {
  function refresh(part) {
    return fetch(part.dataset.live, { credentials: "same-origin", cache: "no-store" })
      .then(function (answer) { return answer.ok ? answer.text() : null; })
      .then(function (html) {
        if (html !== null) {
          part.innerHTML = html;
          part.dataset.refreshed = String(Date.now());
        }
        return html;
      })
      .catch(function () { return null; });
  }

  function listen(parts) {
    if (!parts.length || !window.EventSource) { return; }
    var named = [];
    parts.forEach(function (part) {
      part.dataset.on.split(" ").forEach(function (kind) {
        if (kind === "game" || kind === "tables") {
          named.push(kind + "=" + encodeURIComponent(part.dataset.live));
        }
      });
    });
    var source = new EventSource("/events?" + named.join("&"));
    source.addEventListener("part", function (event) {
      var sent = JSON.parse(event.data);
      parts.forEach(function (part) {
        if (part.dataset.live === sent.url) {
          part.innerHTML = sent.html;
          part.dataset.refreshed = String(Date.now());
        }
      });
    });
    window.addEventListener("pagehide", function () { source.close(); });
  }

  function poll(part) {
    var building = part.querySelector("[data-status='building']");
    if (!building) { return; }
    window.setTimeout(function () {
      refresh(part).then(function () { poll(part); });
    }, 1000);
  }

  function stepper() {
    var list = document.getElementById("steps");
    var controls = document.getElementById("stepper");
    if (!list || !controls) { return; }
    var steps = list.querySelectorAll("li");
    if (!steps.length) { return; }
    var board = document.getElementById("board");
    var at = steps.length - 1;
    function show() {
      steps.forEach(function (step, index) {
        step.classList.toggle("current", index === at);
        step.classList.toggle("later", index > at);
      });
      var step = steps[at];
      document.getElementById("step-at").textContent =
        "step " + (at + 1) + " of " + steps.length + ": " + step.textContent;
      document.getElementById("board-top").textContent = step.dataset.top || "none yet";
      document.getElementById("board-colour").textContent = step.dataset.colour || "";
      var counts = (step.dataset.counts || "").split(",");
      board.querySelectorAll(".count").forEach(function (cell) {
        cell.textContent = counts[Number(cell.dataset.seat)] || "0";
      });
    }
    function go(index) {
      at = Math.max(0, Math.min(steps.length - 1, index));
      show();
    }
    document.getElementById("step-first").addEventListener("click", function () { go(0); });
    document.getElementById("step-back").addEventListener("click", function () { go(at - 1); });
    document.getElementById("step-next").addEventListener("click", function () { go(at + 1); });
    document.getElementById("step-last").addEventListener("click", function () { go(steps.length - 1); });
    controls.hidden = false;
    board.hidden = false;
    list.classList.add("stepping");
    go(0);
  }

  function watch() {
    var list = document.querySelector("[data-watch]");
    if (!list || !window.EventSource) { return; }
    var source = new EventSource(list.dataset.watch);
    source.addEventListener("line", function (message) {
      var item = document.createElement("li");
      item.textContent = JSON.parse(message.data);
      list.appendChild(item);
    });
    source.addEventListener("end", function () {
      source.close();
      document.getElementById("watch-status").textContent = "The game has ended.";
    });
    source.onerror = function () { source.close(); };
  }

  document.addEventListener("DOMContentLoaded", function () {
    var parts = Array.prototype.slice.call(document.querySelectorAll("[data-live]"));
    listen(parts.filter(function (part) { return part.dataset.on !== "poll"; }));
    parts.filter(function (part) { return part.dataset.on === "poll"; }).forEach(poll);
    stepper();
    watch();
  });
})();
