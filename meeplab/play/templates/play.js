// The play page: draws what GET /api/state says the seat at the screen may see, and sends its decisions.
(function () {
  "use strict";
  const params = new URLSearchParams(location.search);
  const token = params.get("token") || "";
  const delayParam = params.get("delay");
  let state = null;
  let busy = false;
  let botTimer = null;
  let endClosed = false;
  // what the page shows now, for scripts and tests: the state, how often the page was drawn, whether a request runs
  const live = { state: null, renders: 0, busy: false };
  window.meeplabPlay = live;

  const $ = (id) => document.getElementById(id);

  function esc(text) {
    return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
  }

  async function api(method, path, body) {
    const init = { method, headers: { Authorization: "Bearer " + token } };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const res = await fetch(path, init);
    let data = null;
    try { data = await res.json(); } catch (e) { data = { error: "no JSON answer (" + res.status + ")" }; }
    if (!res.ok) { throw new Error((data && data.error) || ("HTTP " + res.status)); }
    return data;
  }

  function showError(msg) {
    const el = $("error");
    el.textContent = msg;
    el.hidden = !msg;
    if (msg) { setTimeout(() => { if (el.textContent === msg) { el.hidden = true; } }, 5000); }
  }

  async function refresh() {
    try {
      state = await api("GET", "/api/state");
      render();
      await renderLog();
      live.state = state;
      live.renders += 1;
      schedule();
    } catch (e) {
      showError(e.message);
    }
  }

  function schedule() {
    if (botTimer) { clearTimeout(botTimer); botTimer = null; }
    if (state && state.bot_turn && !state.over) {
      const delay = delayParam !== null ? Number(delayParam) : state.bot_delay_ms;
      botTimer = setTimeout(botMove, delay);
    }
  }

  async function botMove() {
    botTimer = null;
    if (busy) { return schedule(); }
    busy = true;
    live.busy = true;
    try {
      await api("POST", "/api/bot", { at: state.decisions });
    } catch (e) {
      showError(e.message);
    }
    busy = false;
    live.busy = false;
    await refresh();
  }

  async function send(path, body) {
    if (busy) { return; }
    busy = true;
    live.busy = true;
    try {
      await api("POST", path, body);
      showError("");
    } catch (e) {
      showError(e.message);
    }
    busy = false;
    live.busy = false;
    await refresh();
  }

  function renderSeats() {
    $("seats").innerHTML = state.seats.map((s) => {
      const cls = state.turn === s.seat ? ' class="turn"' : "";
      const who = s.seat === state.seat && s.human ? "you" : s.who;
      return "<span" + cls + ' data-seat="' + s.seat + '">P' + s.seat + " " + esc(who) + "</span>";
    }).join("");
  }

  function renderBoard() {
    const b = state.board;
    const el = $("board");
    if (!b) { el.innerHTML = ""; return; }
    el.innerHTML = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ' + b.width + " " + b.height + '">' +
      '<g class="base">' + b.base + '</g><g class="pieces">' + b.pieces + "</g></svg>";
    const byTarget = new Map();
    for (const m of state.legal) {
      if (!m.target) { continue; }
      if (!byTarget.has(m.target)) { byTarget.set(m.target, []); }
      byTarget.get(m.target).push(m);
    }
    const svg = el.querySelector("svg");
    for (const [target, moves] of byTarget) {
      let node = null;
      try { node = svg.querySelector("#" + CSS.escape(target)); } catch (e) { node = null; }
      if (!node) { continue; }
      node.classList.add("target");
      node.setAttribute("data-moves", moves.map((m) => m.id).join(","));
      node.addEventListener("click", () => {
        if (moves.length === 1) { send("/api/move", { move: moves[0].id, at: state.decisions }); }
        else { filterLegal(target, moves); }
      });
    }
  }

  function filterLegal(target, moves) {
    const ids = new Set(moves.map((m) => m.id));
    const list = $("legal");
    list.classList.add("filtered");
    for (const li of list.querySelectorAll("li[data-id]")) {
      li.classList.toggle("match", ids.has(Number(li.dataset.id)));
    }
    $("prompt").textContent = moves.length + " moves there: choose one (or click elsewhere on the list to see all)";
    if (!list.querySelector("li.all")) {
      const li = document.createElement("li");
      li.className = "all match";
      li.innerHTML = '<button type="button">show all moves</button>';
      li.querySelector("button").addEventListener("click", () => { list.classList.remove("filtered"); li.remove(); });
      list.prepend(li);
    }
  }

  function renderLegal() {
    const list = $("legal");
    list.classList.remove("filtered");
    list.innerHTML = state.legal.map((m) =>
      '<li data-id="' + m.id + '"><button type="button" class="move" data-id="' + m.id + '"' +
      (m.target ? ' data-target="' + esc(m.target) + '"' : "") + ">" + esc(m.label) + "</button></li>").join("");
    for (const btn of list.querySelectorAll("button.move")) {
      btn.addEventListener("click", () => send("/api/move", { move: Number(btn.dataset.id), at: state.decisions }));
      const t = btn.dataset.target;
      if (t) {
        btn.addEventListener("mouseenter", () => { const n = document.getElementById(t); if (n) { n.classList.add("hot"); } });
        btn.addEventListener("mouseleave", () => { const n = document.getElementById(t); if (n) { n.classList.remove("hot"); } });
      }
    }
    let prompt = "";
    if (state.over) { prompt = "The game is over."; }
    else if (state.pass_to) { prompt = "Waiting for P" + state.pass_to + " to take the seat."; }
    else if (state.legal.length) { prompt = "Your turn (P" + state.seat + "): " + (state.kind || "choose") + "."; }
    else if (state.bot_turn) { prompt = "P" + state.turn + " (a bot) is thinking..."; }
    $("prompt").textContent = prompt;
    $("undo").disabled = !state.can_undo;
  }

  function renderInfo() {
    const info = state.info;
    if (!info) { $("info").innerHTML = ""; return; }
    let html = "<table><tr><th></th>" + info.columns.map((c) => "<th>" + esc(c) + "</th>").join("") + "</tr>";
    for (const row of info.rows) {
      html += "<tr>" + row.map((v) => "<td>" + esc(v) + "</td>").join("") + "</tr>";
    }
    $("info").innerHTML = html + "</table>";
  }

  function renderEnd() {
    const r = state.result;
    if (!state.over || !r || endClosed) { $("end").hidden = true; return; }
    let html = "<tr><th></th>" + state.seats.map((s) => "<th>P" + s.seat + " " + esc(s.seat === state.seat && s.human ? "you" : s.who) + "</th>").join("") + "</tr>";
    r.categories.forEach((c, j) => {
      html += "<tr><td>" + esc(c) + "</td>" + r.breakdown.map((row) => "<td>" + esc(row[j]) + "</td>").join("") + "</tr>";
    });
    html += '<tr class="total"><td>total</td>' + r.score.map((v) => "<td><b>" + esc(v) + "</b></td>").join("") + "</tr>";
    html += "<tr><td>place</td>" + r.rank.map((v) => "<td>" + esc(v) + "</td>").join("") + "</tr>";
    $("final").innerHTML = html;
    $("end").hidden = false;
  }

  function render() {
    renderSeats();
    $("status").textContent = state.status || "";
    renderBoard();
    renderInfo();
    renderLegal();
    $("handover").hidden = !state.pass_to;
    if (state.pass_to) { $("handover-title").textContent = "Pass the seat to P" + state.pass_to; $("take").textContent = "I am P" + state.pass_to + ": show my hand"; }
    renderEnd();
  }

  // the decisions shown; during a game only the new ones are fetched (a whole log again after an undo, a new game
  // or the end, when withheld alternatives are shown)
  let logItems = [];
  let logSeat = null;
  async function renderLog() {
    const whole = state.over || state.decisions < logItems.length || !logItems.length || state.seat !== logSeat;
    logSeat = state.seat;
    let data;
    try { data = await api("GET", "/api/log?since=" + (whole ? 0 : logItems.length)); } catch (e) { showError(e.message); return; }
    logItems = whole ? data.decisions : logItems.concat(data.decisions);
    const items = logItems.slice().reverse().map((d) => {
      let html = '<li value="' + d.n + '"><span class="who">P' + d.seat + " " + esc(d.who) + "</span> " +
        '<span class="muted">' + esc(d.kind) + ":</span> " + esc(d.label);
      if (d.forced) { html += ' <span class="muted">(only move)</span>'; }
      if (d.alternatives) {
        html += "<details><summary>why? " + d.alternatives.length + " candidate(s) weighed</summary><table>" +
          d.alternatives.map((a) => "<tr" + (a.chosen ? ' class="chosen"' : "") + "><td>" + esc(a.label) +
            "</td><td>" + esc(a.value.toFixed(3)) + "</td><td class=\"muted\">" + esc(a.measure) + "</td></tr>").join("") +
          "</table></details>";
      } else if (d.withheld) {
        html += ' <span class="muted">(alternatives ' + esc(d.withheld) + ")</span>";
      }
      return html + "</li>";
    });
    $("log").innerHTML = items.join("");
  }

  $("undo").addEventListener("click", () => send("/api/undo"));
  $("take").addEventListener("click", () => send("/api/seat", { seat: state.pass_to }));
  $("again").addEventListener("click", () => { endClosed = false; $("saved-note").textContent = ""; send("/api/new"); });
  $("close-end").addEventListener("click", () => { endClosed = true; $("end").hidden = true; });
  $("save").addEventListener("click", async () => {
    try {
      const r = await api("POST", "/api/save");
      $("saved-note").innerHTML = "Saved to <code>" + esc(r.path) + "</code>. " +
        '<a download="game.json" href="/api/saved?token=' + encodeURIComponent(token) + '">Download</a>';
    } catch (e) { showError(e.message); }
  });
  refresh();
})();
