/* meeplab's game viewer: steps through one game's decisions (data in #game-data, built by reports/viewer.py). */
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("game-data").textContent);
  var NS = "http://www.w3.org/2000/svg";
  var steps = D.steps, nSteps = steps.length, np = D.seats.length;
  /* the stored form (reports/viewer.py pack): pieces as changes against the step before or against everything,
     the side table's rows and the candidates' labels pooled; unpacked once here */
  function undelta(base, e) {
    if (e.f) return e.f;
    var out = base.slice(0, e.n);
    while (out.length < e.n) out.push(0);
    for (var i = 0; i < e.d.length; i += 2) out[e.d[i]] = e.d[i + 1];
    return out;
  }
  (function unpack() {
    var prev = null;
    steps.forEach(function (s) {
      var v0 = undelta(prev, s.p[0]), views = [v0];
      for (var j = 1; j < s.p.length; j++) views.push(s.p[j] ? undelta(v0, s.p[j]) : null);
      s.p = views; prev = v0;
      s.info = s.i.map(function (ids) {
        return ids ? { columns: D.info_cols, rows: ids.map(function (r) { return D.rows[r]; }) } : null;
      });
      if (s.alts) s.alts = s.alts.map(function (a) { return [D.labels[a[0]], a[1] < 0 ? null : D.labels[a[1]]].concat(a.slice(2)); });
    });
  })();
  var cur = 0, view = 0; /* view 0 = everything, k = seat k's view (seat k-1) */
  var $ = function (id) { return document.getElementById(id); };
  var board = $("board");
  board.setAttribute("viewBox", "0 0 " + D.size[0] + " " + D.size[1]);
  /* The drawings are SVG markup made by the game's drawing module (which escapes what comes from data). They are
     parsed as SVG (never innerHTML), and only drawing elements with harmless attributes are kept: no script, no
     foreignObject, no on* attribute, no link but "#id" (a second line of defence against an unescaped string). */
  var KEEP = {};
  ("g,rect,circle,ellipse,line,polyline,polygon,path,text,tspan,title,desc,defs,symbol,use,clipPath,mask,pattern," +
   "marker,linearGradient,radialGradient,stop").split(",").forEach(function (t) { KEEP[t] = 1; });
  function clean(node) {
    var kids = Array.prototype.slice.call(node.children);
    kids.forEach(function (c) {
      if (c.namespaceURI !== NS || !KEEP[c.localName]) { c.remove(); return; }
      Array.prototype.slice.call(c.attributes).forEach(function (a) {
        var name = a.localName.toLowerCase(), v = a.value.replace(/[\s\u0000-\u001f]+/g, "").toLowerCase();
        if (name.slice(0, 2) === "on" || ((name === "href" || name === "src") && v.charAt(0) !== "#") ||
            v.indexOf("javascript:") >= 0 || (v.indexOf("url(") >= 0 && v.indexOf("url(#") < 0)) {
          c.removeAttributeNode(a);
        }
      });
      clean(c);
    });
  }
  function svgNodes(markup) {
    /* markup -> its sanitised nodes, imported into this document; null where it is not well-formed */
    var doc = new DOMParser().parseFromString('<svg xmlns="' + NS + '">' + markup + "</svg>", "image/svg+xml");
    var root = doc.documentElement;
    if (root.localName !== "svg" || root.namespaceURI !== NS || doc.getElementsByTagName("parsererror").length) {
      return null;
    }
    clean(root);
    var got = [];
    for (var c = root.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 1 || c.nodeType === 3) got.push(document.importNode(c, true));
    }
    return got;
  }
  function drawInto(target, markups) {
    /* replace target's children by the drawing of markups (strings; a piece may open a group that a later one
       closes, so they are parsed together; if that fails, piece by piece, leaving out any that is not SVG) */
    var nodes = svgNodes(markups.join(""));
    if (nodes === null) {
      nodes = [];
      markups.forEach(function (m) { nodes = nodes.concat(svgNodes(m) || []); });
    }
    var frag = document.createDocumentFragment();
    nodes.forEach(function (n) { frag.appendChild(n); });
    target.replaceChildren(frag);
  }
  drawInto($("base"), [D.base]);
  var DASH = ["", "8 4", "2 3", "10 3 2 3", "4 4"];

  function el(tag, attrs, text) {
    var e = document.createElementNS(NS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function h(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function fmt(x) {
    if (x === null || x === undefined) return "";
    var a = Math.abs(x);
    return a >= 100 ? x.toFixed(0) : a >= 10 ? x.toFixed(1) : x.toFixed(3).replace(/0+$/, "").replace(/\.$/, "");
  }

  /* controls */
  var slider = $("slider");
  slider.max = String(nSteps - 1);
  var roundSel = $("round"), rounds = [];
  steps.forEach(function (s, k) { if (rounds.indexOf(s.round) < 0) rounds.push(s.round); });
  rounds.forEach(function (r) {
    var o = h("option", String(r)); o.value = String(r); roundSel.appendChild(o);
  });
  var viewSel = $("view");
  var o0 = h("option", "everything"); o0.value = "0"; viewSel.appendChild(o0);
  D.seats.forEach(function (s, i) {
    var o = h("option", "as " + s.name + " sees it"); o.value = String(i + 1); viewSel.appendChild(o);
  });

  function piecesOf(k, v) {
    var p = steps[k].p;
    var list = (v > 0 && p[v]) ? p[v] : p[0];
    var out = new Array(list.length);
    for (var i = 0; i < list.length; i++) out[i] = D.pool[list[i]];
    return out;
  }
  function infoOf(k, v) {
    var inf = steps[k].info;
    return (v > 0 && inf[v]) ? inf[v] : inf[0];
  }

  function mark(target, cls) {
    if (!target) return;
    var t = document.getElementById(target);
    if (!t || !t.getBoundingClientRect) return;
    /* the element's box in the board's own coordinates (it may sit in a transformed group) */
    var r = t.getBoundingClientRect(), m = board.getScreenCTM();
    if (!m || (r.width === 0 && r.height === 0)) return;
    m = m.inverse();
    var p1 = board.createSVGPoint(), p2 = board.createSVGPoint();
    p1.x = r.left; p1.y = r.top; p2.x = r.right; p2.y = r.bottom;
    p1 = p1.matrixTransform(m); p2 = p2.matrixTransform(m);
    var b = { x: p1.x, y: p1.y, width: p2.x - p1.x, height: p2.y - p1.y }, pad = 4;
    var marks = $("marks");
    if (cls === "mark-chosen") {
      marks.appendChild(el("rect", { x: b.x - pad, y: b.y - pad, width: b.width + 2 * pad, height: b.height + 2 * pad,
        rx: 6, "class": "mark-chosen-halo" }));
    }
    marks.appendChild(el("rect", { x: b.x - pad, y: b.y - pad, width: b.width + 2 * pad, height: b.height + 2 * pad,
      rx: 6, "class": cls }));
  }
  function clearHover() {
    var m = $("marks").querySelectorAll(".mark-hover");
    for (var i = 0; i < m.length; i++) m[i].remove();
  }

  function hiddenAlts(s) {
    /* the candidates name what only the deciding seat knows (its hand): another seat's view shows the one chosen */
    return D.private_moves && view > 0 && s.alts && view - 1 !== s.seat;
  }

  function faceDown(s) {
    /* a secret decision (GameSpec.secret) seen by another seat: that it was made, never what, nor its candidates */
    return s.secret && view > 0 && s.alts && view - 1 !== s.seat;
  }

  function searchCell(s, a) {
    /* rollout: the candidate's mean playout value; ismcts: the root's visits and mean value (its most visited few) */
    if (a[3] === null || a[3] === undefined) return s.iters ? "fewer visits" : s.search ? "not searched" : "";
    return s.iters ? fmt(a[3]) + " (" + a[4] + (a[4] === 1 ? " visit)" : " visits)") : fmt(a[3]);
  }

  function renderAlts(s) {
    var tb = $("alts").tBodies[0];
    tb.replaceChildren();
    if (!s.alts) { $("alts").style.display = "none"; return; }
    $("alts").style.display = "";
    if (faceDown(s)) {
      var fr = h("tr"), fd = h("td", D.seats[s.seat].name + " chose face down: shown in " + D.seats[s.seat].name +
        "'s view and in everything, not in this one.");
      fd.colSpan = 4; fr.appendChild(fd); tb.appendChild(fr);
      return;
    }
    if (hiddenAlts(s)) {
      var a = s.alts[s.pick], tr = h("tr"), note = h("tr");
      tr.className = "chosen";
      tr.appendChild(h("td", "")); tr.appendChild(h("td", a[0] + "  (chosen)"));
      tr.appendChild(h("td", "")); tr.appendChild(h("td", ""));
      var td = h("td", "The other candidates are " + D.seats[s.seat].name + "'s own options, hidden in this view.");
      td.colSpan = 4; note.appendChild(td);
      tb.appendChild(tr); tb.appendChild(note);
      return;
    }
    /* the search's favourite: the best mean playout value (rollout) or the most visits (ismcts, a[4]) */
    var best = -1, key = s.iters ? 4 : 3;
    s.alts.forEach(function (a, i) { if (a[key] !== null && a[key] !== undefined && (best < 0 || a[key] > s.alts[best][key])) best = i; });
    s.alts.forEach(function (a, i) {
      var tr = h("tr");
      if (i === s.pick) { tr.className = "chosen"; tr.setAttribute("aria-current", "true"); }
      if (i === best) tr.className += " best";
      tr.appendChild(h("td", String(i)));
      tr.appendChild(h("td", a[0] + (i === s.pick ? "  (chosen)" : "")));
      tr.appendChild(h("td", fmt(a[2]), "num"));
      tr.appendChild(h("td", searchCell(s, a), "num search"));
      tr.tabIndex = 0;
      tr.addEventListener("mouseenter", function () { clearHover(); mark(a[1], "mark-hover"); });
      tr.addEventListener("focus", function () { clearHover(); mark(a[1], "mark-hover"); });
      tr.addEventListener("mouseleave", clearHover);
      tr.addEventListener("blur", clearHover);
      tb.appendChild(tr);
    });
    /* a long list scrolls in its box: keep the chosen candidate in sight */
    var box = $("alts-box"), chosen = tb.querySelector("tr.chosen");
    if (chosen) box.scrollTop = Math.max(0, chosen.offsetTop - box.clientHeight / 2);
  }

  function renderInfo(k) {
    var t = $("info"), inf = infoOf(k, view);
    t.replaceChildren();
    var head = h("tr"); head.appendChild(h("th", ""));
    inf.columns.forEach(function (c, i) {
      var th = h("th", c); th.scope = "col";
      if (D.seats[i]) { th.style.borderBottom = "4px solid " + D.seats[i].colour; th.title = D.seats[i].bot; }
      head.appendChild(th);
    });
    t.appendChild(head);
    inf.rows.forEach(function (r) {
      var tr = h("tr");
      r.forEach(function (c, i) { tr.appendChild(h(i === 0 ? "th" : "td", c)); });
      t.appendChild(tr);
    });
  }

  function renderFinal(k) {
    var f = $("final");
    f.replaceChildren();
    if (k !== nSteps - 1) return;
    f.appendChild(h("h3", D.truncated ? "Shown so far (the game is longer than the viewer keeps)" : "Final score"));
    var t = h("table"); t.className = "info";
    var head = h("tr"); head.appendChild(h("th", ""));
    D.seats.forEach(function (s) { head.appendChild(h("th", s.name + " (" + s.bot + ")")); });
    t.appendChild(head);
    D.final.categories.forEach(function (c, j) {
      var tr = h("tr"); tr.appendChild(h("th", c.replace(/_/g, " ")));
      D.final.breakdown.forEach(function (row) { tr.appendChild(h("td", fmt(row[j]))); });
      t.appendChild(tr);
    });
    var tr = h("tr"); tr.appendChild(h("th", "total"));
    D.final.score.forEach(function (x) { tr.appendChild(h("td", fmt(x))); });
    t.appendChild(tr);
    f.appendChild(t);
  }

  function show(k) {
    cur = Math.max(0, Math.min(nSteps - 1, k));
    var s = steps[cur];
    drawInto($("pieces"), piecesOf(cur, view));
    $("marks").replaceChildren();
    slider.value = String(cur);
    $("counter").textContent = cur === nSteps - 1 ? "the end (" + (nSteps - 1) + " decisions)" :
      "decision " + (cur + 1) + " of " + (nSteps - 1);
    roundSel.value = String(s.round);
    $("status").textContent = s.status;
    if (s.alts) {
      var seat = D.seats[s.seat];
      $("decision").textContent = seat.name + " (" + seat.bot + ") decides: " + s.kind +
        (faceDown(s) ? " (face down)" : hiddenAlts(s) ? "" :
          s.alts.length === 1 ? " (only one candidate)" : ", " + s.alts.length + " candidates") +
        (s.search && !faceDown(s) ? ", searched with up to " + s.search + " playouts each (mean value)" : "") +
        (s.iters && !faceDown(s) ?
          ", searched with " + s.iters + " ismcts iterations (mean value and visits of the most visited)" : "");
      if (!faceDown(s)) mark(s.alts[s.pick] && s.alts[s.pick][1], "mark-chosen");
    } else {
      $("decision").textContent = "The game is over";
    }
    renderAlts(s);
    var ev = $("events"); ev.replaceChildren();
    var lines = (view > 0 && s.ev[view]) ? s.ev[view] : s.ev[0];
    (lines.length ? lines : ["(nothing)"]).forEach(function (line) { ev.appendChild(h("li", line)); });
    renderInfo(cur);
    renderFinal(cur);
    drawCursor();
  }

  /* the chart under the board: win chances (trajectories) or the score race */
  var chart = $("chart"), CW = 800, CH = 170, L = 44, R = 10, T = 10, B = 26;
  chart.setAttribute("viewBox", "0 0 " + CW + " " + CH);
  chart.setAttribute("preserveAspectRatio", "none");
  var series, ymax, ymin = 0, xs, isTraj = !!D.traj;
  if (isTraj) {
    $("chart-title").textContent = "Chance to win (trajectories)";
    xs = D.traj.step; series = D.traj.p; ymax = 1;
  } else {
    xs = steps.map(function (s, k) { return k; });
    series = D.seats.map(function (s, i) { return steps.map(function (st) { return st.score[i]; }); });
    ymax = 1;
    series.forEach(function (row) { row.forEach(function (v) { if (v > ymax) ymax = v; if (v < ymin) ymin = v; }); });
  }
  function X(k) { return L + (CW - L - R) * (nSteps > 1 ? k / (nSteps - 1) : 0); }
  function Y(v) { return CH - B - (CH - B - T) * ((v - ymin) / (ymax - ymin)); }
  function drawChart() {
    chart.replaceChildren();
    chart.appendChild(el("line", { x1: L, y1: Y(0), x2: CW - R, y2: Y(0), stroke: "#888" }));
    chart.appendChild(el("line", { x1: L, y1: T, x2: L, y2: Y(ymin), stroke: "#888" }));
    if (ymin < 0) chart.appendChild(el("text", { x: L - 4, y: Y(ymin), "text-anchor": "end", "class": "small" }, fmt(ymin)));
    chart.appendChild(el("text", { x: L - 4, y: T + 8, "text-anchor": "end", "class": "small" }, isTraj ? "100%" : fmt(ymax)));
    chart.appendChild(el("text", { x: L - 4, y: Y(0), "text-anchor": "end", "class": "small" }, "0"));
    chart.appendChild(el("text", { x: CW - R, y: CH - 6, "text-anchor": "end", "class": "small" }, "decision"));
    var lastRound = null;
    steps.forEach(function (s, k) {
      if (s.round !== lastRound) {
        lastRound = s.round;
        chart.appendChild(el("line", { x1: X(k), y1: T, x2: X(k), y2: Y(ymin), stroke: "#e3e3e3" }));
      }
    });
    series.forEach(function (row, i) {
      var pts = [];
      row.forEach(function (v, j) { if (v !== null && v !== undefined) pts.push(X(xs[j]).toFixed(1) + "," + Y(v).toFixed(1)); });
      chart.appendChild(el("polyline", { points: pts.join(" "), fill: "none", stroke: D.seats[i].colour,
        "stroke-width": 2.2, "stroke-dasharray": DASH[i % DASH.length] }));
      /* the legend: 150 units per seat, a longer bot name cut (whole in its tooltip) */
      var who = D.seats[i].name + " (" + D.seats[i].bot + ")";
      var legend = el("text", { x: L + 46 + i * 150, y: T + 18, "class": "small", fill: "#000" },
        who.length > 19 ? who.slice(0, 18) + "\u2026" : who);
      legend.appendChild(el("title", {}, who));
      chart.appendChild(legend);
      chart.appendChild(el("line", { x1: L + 8 + i * 150, y1: T + 14, x2: L + 40 + i * 150, y2: T + 14,
        stroke: D.seats[i].colour, "stroke-width": 3, "stroke-dasharray": DASH[i % DASH.length] }));
    });
    chart.appendChild(el("line", { id: "cursor", x1: X(0), y1: T, x2: X(0), y2: Y(ymin), stroke: "#000", "stroke-width": 1.5 }));
  }
  function drawCursor() {
    var c = document.getElementById("cursor");
    if (c) { c.setAttribute("x1", X(cur)); c.setAttribute("x2", X(cur)); }
  }
  chart.addEventListener("click", function (e) {
    var r = chart.getBoundingClientRect();
    var x = (e.clientX - r.left) / r.width * CW;
    show(Math.round((x - L) / (CW - L - R) * (nSteps - 1)));
  });

  function jumpRound(r) {
    for (var k = 0; k < nSteps; k++) if (steps[k].round === r) { show(k); return; }
  }
  function roundStep(dir) {
    var r = steps[cur].round, k;
    if (dir > 0) {
      for (k = cur + 1; k < nSteps; k++) if (steps[k].round !== r) { show(k); return; }
      show(nSteps - 1); return;
    }
    var first = cur;
    while (first > 0 && steps[first - 1].round === r) first--;
    if (first < cur || first === 0) { show(first); return; }
    k = first - 1; r = steps[k].round;
    while (k > 0 && steps[k - 1].round === r) k--;
    show(k);
  }

  $("first").addEventListener("click", function () { show(0); });
  $("prev").addEventListener("click", function () { show(cur - 1); });
  $("next").addEventListener("click", function () { show(cur + 1); });
  $("last").addEventListener("click", function () { show(nSteps - 1); });
  slider.addEventListener("input", function () { show(parseInt(slider.value, 10)); });
  roundSel.addEventListener("change", function () { jumpRound(parseInt(roundSel.value, 10)); });
  viewSel.addEventListener("change", function () { view = parseInt(viewSel.value, 10); show(cur); });
  document.addEventListener("keydown", function (e) {
    var tag = (e.target && e.target.tagName) || "";
    if (tag === "SELECT" || (tag === "INPUT" && e.target.type !== "range")) return;
    var k = e.key;
    if (k === "ArrowRight" || k === "ArrowLeft") {
      e.preventDefault(); show(cur + (k === "ArrowRight" ? 1 : -1));
    } else if (k === "Home") { e.preventDefault(); show(0); }
    else if (k === "End") { e.preventDefault(); show(nSteps - 1); }
    else if (k === "PageDown") { e.preventDefault(); roundStep(1); }
    else if (k === "PageUp") { e.preventDefault(); roundStep(-1); }
    else if (k === "v") { view = (view + 1) % (np + 1); viewSel.value = String(view); show(cur); }
  });

  drawChart();
  show(0);
  window.meeplabViewer = { show: show, current: function () { return cur; }, steps: nSteps,
    setView: function (v) { view = v; viewSel.value = String(v); show(cur); } };
})();
