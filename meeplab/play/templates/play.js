// The play page: draws what GET /api/state says the seat at the screen may see, and sends its decisions.
// Data goes into the page as text nodes and DOM elements, never as HTML; the board's SVG (from the game's drawing
// module) is parsed as XML and cleaned of anything that could run or load (svgFrom). The requests authenticate by
// the session cookie, which this script cannot read.
(function () {
  "use strict";
  const params = new URLSearchParams(location.search);
  const delayParam = params.get("delay");
  const SVG_NS = "http://www.w3.org/2000/svg";
  let state = null;
  let busy = false;
  let botTimer = null;
  let endClosed = false;
  // what the page shows now, for scripts and tests: the state, how often the page was drawn, whether a request runs
  const live = { state: null, renders: 0, busy: false };
  window.meeplabPlay = live;

  const $ = (id) => document.getElementById(id);

  // an element: el("td", { className: "muted" }, "text", child, ...); strings become text nodes
  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (k === "className") { node.className = v; }
      else if (k === "dataset") { Object.assign(node.dataset, v); }
      else { node.setAttribute(k, v); }
    }
    for (const c of children) {
      if (c === null || c === undefined || c === false) { continue; }
      node.append(c instanceof Node ? c : String(c));
    }
    return node;
  }

  // SVG elements that can run script, load something or rewrite links: removed from a board before it is shown
  const SVG_DROP = new Set(["script", "foreignobject", "iframe", "embed", "object", "style", "set", "animate",
    "animatemotion", "animatetransform", "discard", "handler", "listener"]);

  // the board's SVG text as a node of this document: parsed as XML, then every element outside the SVG namespace or
  // in SVG_DROP, every on* attribute and every link but "#id" removed; null where it is not well-formed
  function svgFrom(text) {
    const doc = new DOMParser().parseFromString(text, "image/svg+xml");
    const root = doc.documentElement;
    if (!root || root.namespaceURI !== SVG_NS || root.localName !== "svg" ||
        doc.getElementsByTagNameNS("*", "parsererror").length) { return null; }
    for (const node of Array.from(root.querySelectorAll("*"))) {
      if (node.namespaceURI !== SVG_NS || SVG_DROP.has(node.localName.toLowerCase())) { node.remove(); }
    }
    for (const node of [root, ...root.querySelectorAll("*")]) {
      for (const attr of Array.from(node.attributes)) {
        const name = attr.localName.toLowerCase();
        const link = name === "href" || name === "src" || name === "action" || name === "formaction";
        if (name.startsWith("on") || name === "style" || (link && !/^#[\w.:-]*$/.test(attr.value.trim()))) {
          node.removeAttributeNode(attr);
        }
      }
    }
    return document.importNode(root, true);
  }

  async function api(method, path, body) {
    const init = { method, headers: {}, credentials: "same-origin" };
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
    const box = $("error");
    box.textContent = msg;
    box.hidden = !msg;
    if (msg) { setTimeout(() => { if (box.textContent === msg) { box.hidden = true; } }, 5000); }
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
    $("seats").replaceChildren(...state.seats.map((s) => {
      const who = s.seat === state.seat && s.human ? "you" : s.who;
      return el("span", { className: state.turn === s.seat ? "turn" : "", dataset: { seat: s.seat } },
        "P" + s.seat + " " + who);
    }));
  }

  function renderBoard() {
    const b = state.board;
    const box = $("board");
    if (!b) { box.replaceChildren(); return; }
    const svg = svgFrom('<svg xmlns="' + SVG_NS + '" viewBox="0 0 ' + Number(b.width) + " " + Number(b.height) +
      '"><g class="base">' + b.base + '</g><g class="pieces">' + b.pieces + "</g></svg>");
    if (!svg) {
      box.replaceChildren(el("p", { className: "muted" }, "(the board could not be drawn: its SVG is not well-formed)"));
      return;
    }
    box.replaceChildren(svg);
    const byTarget = new Map();
    for (const m of state.legal) {
      if (!m.target) { continue; }
      if (!byTarget.has(m.target)) { byTarget.set(m.target, []); }
      byTarget.get(m.target).push(m);
    }
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
      const li = el("li", { className: "all match" }, el("button", { type: "button" }, "show all moves"));
      li.querySelector("button").addEventListener("click", () => { list.classList.remove("filtered"); li.remove(); });
      list.prepend(li);
    }
  }

  function renderLegal() {
    const list = $("legal");
    list.classList.remove("filtered");
    list.replaceChildren(...state.legal.map((m) => {
      const data = { id: m.id };
      if (m.target) { data.target = m.target; }
      return el("li", { dataset: { id: m.id } }, el("button", { type: "button", className: "move", dataset: data }, m.label));
    }));
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
    $("undo").hidden = Boolean(state.over);
    $("undo-note").textContent = state.undo_note || "";
    $("undo-note").hidden = !state.undo_note;
  }

  function renderInfo() {
    const info = state.info;
    if (!info) { $("info").replaceChildren(); return; }
    const table = el("table", {}, el("tr", {}, el("th"), ...info.columns.map((c) => el("th", {}, c))));
    for (const row of info.rows) { table.append(el("tr", {}, ...row.map((v) => el("td", {}, v)))); }
    $("info").replaceChildren(table);
  }

  function renderEnd() {
    const r = state.result;
    if (!state.over || !r || endClosed) { $("end").hidden = true; return; }
    const rows = [el("tr", {}, el("th"), ...state.seats.map((s) =>
      el("th", {}, "P" + s.seat + " " + (s.seat === state.seat && s.human ? "you" : s.who))))];
    r.categories.forEach((c, j) => {
      rows.push(el("tr", {}, el("td", {}, c), ...r.breakdown.map((row) => el("td", {}, row[j]))));
    });
    rows.push(el("tr", { className: "total" }, el("td", {}, "total"), ...r.score.map((v) => el("td", {}, el("b", {}, v)))));
    rows.push(el("tr", {}, el("td", {}, "place"), ...r.rank.map((v) => el("td", {}, v))));
    $("final").replaceChildren(...rows);
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

  // the decisions shown, as GET /api/log gives them to the seat at the screen. During a game the page fetches the
  // new ones and again every one from the first that it shows face down on: the server names a secret decision once
  // the game reveals it (with its count and alternatives), and the entry is replaced by what it gives then; before,
  // the server gives "chose face down" and so does the page. A whole log again after an undo, a new game, another
  // seat taking the screen or the end (when withheld alternatives are shown).
  let logItems = [];
  let logSeat = null;
  async function renderLog() {
    const whole = state.over || state.decisions < logItems.length || !logItems.length || state.seat !== logSeat;
    logSeat = state.seat;
    let since = 0;
    if (!whole) {
      const down = logItems.findIndex((d) => d.face_down);
      since = down < 0 ? logItems.length : down;
    }
    let data;
    try { data = await api("GET", "/api/log?since=" + since); } catch (e) { showError(e.message); return; }
    logItems = logItems.slice(0, since).concat(data.decisions);
    const items = logItems.slice().reverse().map((d) => {
      const li = el("li", { value: Number(d.n) }, el("span", { className: "who" }, "P" + d.seat + " " + d.who), " ",
        el("span", { className: "muted" }, d.kind + ":"), " " + d.label);
      if (d.forced) { li.append(" ", el("span", { className: "muted" }, "(only move)")); }
      if (d.alternatives) {
        const table = el("table", {}, ...d.alternatives.map((a) => el("tr", { className: a.chosen ? "chosen" : "" },
          el("td", {}, a.label), el("td", {}, a.value === null ? "–" : Number(a.value).toFixed(3)), el("td", { className: "muted" }, a.measure))));
        li.append(el("details", {}, el("summary", {}, "why? " + d.alternatives.length + " candidate(s) weighed"), table));
      } else if (d.withheld) {
        li.append(" ", el("span", { className: "muted" }, "(alternatives " + d.withheld + ")"));
      }
      return li;
    });
    $("log").replaceChildren(...items);
  }

  $("undo").addEventListener("click", () => send("/api/undo"));
  $("take").addEventListener("click", () => send("/api/seat", { seat: state.pass_to }));
  $("again").addEventListener("click", () => { endClosed = false; $("saved-note").textContent = ""; send("/api/new"); });
  $("close-end").addEventListener("click", () => { endClosed = true; $("end").hidden = true; });
  $("save").addEventListener("click", async () => {
    try {
      const r = await api("POST", "/api/save");
      $("saved-note").replaceChildren("Saved to ", el("code", {}, r.path), ". ",
        el("a", { download: "game.json", href: "/api/saved" }, "Download"));
    } catch (e) { showError(e.message); }
  });
  refresh();
})();
