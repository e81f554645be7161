// schedoctor HTML report: draws the pictures from the JSON inlined in the
// page (script#sd-data). Plain JS, no library, no network. Every string
// from the data reaches the page through textContent, never as markup.
"use strict";
(function () {
  var errors = [];
  function record(msg) { errors.push(String(msg)); document.body.setAttribute("data-errors", errors.join(" | ")); }
  window.addEventListener("error", function (e) { record("error: " + e.message); });
  // A request the page tried and the content security policy refused.
  document.addEventListener("securitypolicyviolation", function (e) { record("blocked " + e.violatedDirective + ": " + e.blockedURI); });
  var origError = console.error;
  console.error = function () { record("console.error: " + Array.prototype.join.call(arguments, " ")); origError.apply(console, arguments); };

  var NS = "http://www.w3.org/2000/svg";
  function el(tag, attrs, parent) {
    var e = document.createElementNS(NS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  // Control characters from the input are shown escaped, as in the text
  // report, rather than vanishing or breaking a line.
  function clean(s) {
    return String(s).replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, function (c) {
      var h = c.charCodeAt(0).toString(16);
      return h.length <= 2 ? "\\x" + ("0" + h).slice(-2) : "\\u" + h;
    });
  }
  function text(x, y, s, parent, anchor) {
    var t = el("text", { x: x, y: y }, parent);
    if (anchor) t.setAttribute("text-anchor", anchor);
    t.textContent = clean(s);
    return t;
  }
  // The width of a drawn label, in px.
  function textW(t) { try { return t.getComputedTextLength(); } catch (e) { return 6.6 * t.textContent.length; } }
  // fit shortens a drawn label to at most w px, ending it with "…" (a
  // label from input can be any length: a benchmark's metric, a name).
  function fit(t, w) {
    if (textW(t) <= w) return t;
    var s = t.textContent, lo = 0, hi = s.length;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      t.textContent = s.slice(0, mid) + "…";
      if (textW(t) <= w) lo = mid; else hi = mid - 1;
    }
    t.textContent = s.slice(0, lo) + "…";
    return t;
  }
  // labelRow draws labels beside (or centred on) their marks at y, in as
  // many rows of rowH px as opt.rows allows (sdPlaceLabels, layout.js):
  // none overlaps another. A label that fits in no row is not drawn.
  function labelRow(svg, items, y, rowH, lo, hi, opt) {
    var ts = items.map(function (it) { var t = text(0, y, it.s, svg); if (it.cls) t.setAttribute("class", it.cls); fit(t, hi - lo); return t; });
    var placed = sdPlaceLabels(items.map(function (it, i) { return { at: it.at, w: textW(ts[i]) }; }), lo, hi, opt);
    ts.forEach(function (t, i) {
      var p = placed[i];
      if (p.row < 0) { svg.removeChild(t); return; }
      t.setAttribute("x", p.x.toFixed(1));
      t.setAttribute("y", (y + p.row * rowH).toFixed(1));
    });
  }
  function fmtDur(ns) {
    if (ns < 1e3) return ns.toFixed(0) + "ns";
    if (ns < 1e6) return +(ns / 1e3).toPrecision(3) + "µs";
    if (ns < 1e9) return +(ns / 1e6).toPrecision(3) + "ms";
    return +(ns / 1e9).toPrecision(3) + "s";
  }
  function fmtNum(v) {
    if (v === 0) return "0";
    var a = Math.abs(v);
    if (a >= 1e9) return +(v / 1e9).toPrecision(3) + "G";
    if (a >= 1e6) return +(v / 1e6).toPrecision(3) + "M";
    if (a >= 1e4) return +(v / 1e3).toPrecision(3) + "k";
    if (a < 0.01) return v.toPrecision(2);
    return +v.toPrecision(3) + "";
  }
  function pct(v) { return (100 * v).toFixed(v < 0.001 ? 2 : 1) + "%"; }
  function detailOf(box) { return document.getElementById(box.id + "-detail"); }
  function say(box, s) { var d = detailOf(box); if (d) d.textContent = clean(s); }
  function width(box) { return Math.max(box.clientWidth || 0, 320); }
  // A picture is drawn in the box's pixels at load; its viewBox lets it
  // scale with the page afterwards (a narrower window, or paper when
  // printed) instead of being cut off.
  function canvas(box) {
    var w = width(box), h = Math.max(box.clientHeight || 0, 1);
    return el("svg", { role: "presentation", viewBox: "0 0 " + w + " " + h }, box);
  }
  var counts = { flame: 0, timeline: 0, histogram: 0, curve: 0 };

  // Flame graph: root on top, each frame's width its CPU, coloured by the
  // cause with most of its CPU. Hover or arrow keys show frame, cause and
  // share; click or Enter zooms; Escape zooms out.
  function flame(box, f, col) {
    var rowH = 18, names = f.names, causes = f.causes;
    var byNode = [], parent = [];
    (function walk(n, p) { byNode.push(n); parent.push(p); var me = byNode.length - 1; n._i = me; (n.k || []).forEach(function (c) { walk(c, me); }); })(f.root, -1);
    var zoom = 0, sel = 0;
    function label(n) { return names[n.n]; }
    function describe(n) {
      var s = label(n) + " — " + causes[n.c] + " — " + pct(n.v / f.total) + " of CPU (" + fmtNum(n.v / f.total * f.cores) + " cores)";
      if (n.cv) s += "; by cause: " + n.cv.slice().sort(function (a, b) { return b[1] - a[1]; }).slice(0, 4).map(function (p) { return causes[p[0]] + " " + pct(p[1] / n.v); }).join(", ");
      return s;
    }
    function draw() {
      var W = width(box);
      while (box.firstChild) box.removeChild(box.firstChild);
      var svg = canvas(box);
      var z = byNode[zoom], x0 = 0, scale = W / z.v, drawn = 0;
      // Ancestors of the zoomed frame span the whole width.
      var anc = [], a = parent[zoom];
      while (a >= 0) { anc.unshift(a); a = parent[a]; }
      function rect(n, x, depth, w) {
        var r = el("rect", { x: x, y: depth * rowH, width: Math.max(w, 0.5), height: rowH - 1, "class": "fr " + (col.flame || [])[n.c] + (n._i === sel ? " sel" : ""), "data-i": n._i }, svg);
        drawn++;
        if (w > 40) {
          var chars = Math.floor((w - 6) / 6.6), s = label(n);
          text(x + 3, depth * rowH + 13, s.length > chars ? s.slice(0, Math.max(chars - 1, 1)) + "…" : s, svg);
        }
        return r;
      }
      anc.forEach(function (i, d) { rect(byNode[i], 0, d, W); });
      (function place(n, x, depth) {
        rect(n, x, depth, n.v * scale);
        var cx = x;
        (n.k || []).forEach(function (c) { place(c, cx, depth + 1); cx += c.v * scale; });
      })(z, x0, anc.length);
      svg.setAttribute("data-rects", drawn);
      box.setAttribute("data-rects", drawn);
      svg.addEventListener("mousemove", function (e) { var i = e.target.getAttribute("data-i"); if (i !== null) say(box, describe(byNode[+i])); });
      svg.addEventListener("click", function (e) { var i = e.target.getAttribute("data-i"); if (i !== null) { sel = +i; zoom = sel === zoom ? 0 : sel; draw(); say(box, describe(byNode[sel])); } });
    }
    box.addEventListener("keydown", function (e) {
      var n = byNode[sel], p = parent[sel], handled = true;
      if (e.key === "ArrowUp" && p >= 0) sel = p;
      else if (e.key === "ArrowDown" && n.k && n.k.length) sel = n.k[0]._i;
      else if ((e.key === "ArrowLeft" || e.key === "ArrowRight") && p >= 0) {
        var sib = byNode[p].k, j = sib.indexOf(n) + (e.key === "ArrowLeft" ? -1 : 1);
        if (j >= 0 && j < sib.length) sel = sib[j]._i;
      } else if (e.key === "Enter" || e.key === " ") zoom = sel;
      else if (e.key === "Escape") zoom = 0;
      else handled = false;
      if (handled) { e.preventDefault(); draw(); say(box, describe(byNode[sel])); }
    });
    draw();
    counts.flame += byNode.length;
  }

  // P timeline: one row per P, the share of each bucket in each state
  // stacked; the runnable goroutines below. Buckets were aggregated while
  // the trace streamed, so the drawing is bounded whatever its length.
  function timeline(box, t, col) {
    // The row height is the server's (data-row), which sized the box.
    var rowH = +box.getAttribute("data-row") || 14, gutter = 64, runH = 80, W = width(box), n = t.buckets;
    var svg = canvas(box), paths = 0;
    var bw = (W - gutter - 4) / n;
    function xAt(i) { return gutter + i * bw; }
    t.procs.forEach(function (p, row) {
      var y0 = row * rowH, base = new Array(n).fill(0);
      text(4, y0 + rowH / 2 + 4, "P" + p.id, svg);
      p.states.forEach(function (vals, si) {
        if (!vals) return;
        var top = [], bot = [];
        for (var i = 0; i < n; i++) {
          var b = base[i], v = b + vals[i];
          base[i] = v;
          var yb = y0 + rowH - 1 - (rowH - 2) * b / 1000, yt = y0 + rowH - 1 - (rowH - 2) * v / 1000;
          top.push(xAt(i).toFixed(1) + "," + yt.toFixed(1), xAt(i + 1).toFixed(1) + "," + yt.toFixed(1));
          bot.unshift(xAt(i + 1).toFixed(1) + "," + yb.toFixed(1), xAt(i).toFixed(1) + "," + yb.toFixed(1));
        }
        el("path", { d: "M" + top.join("L") + "L" + bot.join("L") + "Z", "class": "tp " + (col.states || [])[si] }, svg);
        paths++;
      });
    });
    var ry0 = t.procs.length * rowH + 8, rmax = Math.max.apply(null, t.runnable.concat([1]));
    text(4, ry0 + 11, "runnable", svg);
    text(gutter + 4, ry0 + 11, "max " + fmtNum(rmax), svg);
    var pts = [xAt(0).toFixed(1) + "," + (ry0 + runH)];
    t.runnable.forEach(function (v, i) {
      var y = (ry0 + runH - runH * v / rmax).toFixed(1);
      pts.push(xAt(i).toFixed(1) + "," + y, xAt(i + 1).toFixed(1) + "," + y);
    });
    pts.push(xAt(n).toFixed(1) + "," + (ry0 + runH));
    el("path", { d: "M" + pts.join("L") + "Z", "class": "tp runq" }, svg);
    paths++;
    el("line", { x1: gutter, x2: W - 4, y1: ry0 + runH, y2: ry0 + runH, "class": "axis" }, svg);
    text(gutter, ry0 + runH + 14, fmtDur(t.start_ns), svg);
    text(W - 4, ry0 + runH + 14, fmtDur(t.start_ns + n * t.bucket_ns), svg, "end");
    var cursor = el("line", { x1: 0, x2: 0, y1: 0, y2: ry0 + runH, "class": "cursor", visibility: "hidden" }, svg);
    var cur = { i: 0, row: 0 };
    function show() {
      var i = cur.i, x = xAt(i + 0.5);
      cursor.setAttribute("x1", x); cursor.setAttribute("x2", x); cursor.setAttribute("visibility", "visible");
      var s = fmtDur(t.start_ns + i * t.bucket_ns) + "–" + fmtDur(t.start_ns + (i + 1) * t.bucket_ns);
      var p = t.procs[cur.row];
      if (p) {
        var parts = [];
        p.states.forEach(function (v, si) { if (v && v[i] > 0) parts.push(t.states[si] + " " + (v[i] / 10).toFixed(1) + "%"); });
        s += ", P" + p.id + ": " + (parts.join(", ") || "no events");
      }
      s += "; runnable goroutines " + fmtNum(t.runnable[i] || 0);
      say(box, s);
    }
    svg.addEventListener("mousemove", function (e) {
      var r = svg.getBoundingClientRect(), x = e.clientX - r.left, y = e.clientY - r.top;
      if (x < gutter) return;
      cur.i = Math.min(n - 1, Math.max(0, Math.floor((x - gutter) / bw)));
      cur.row = Math.min(t.procs.length - 1, Math.max(0, Math.floor(y / rowH)));
      show();
    });
    box.addEventListener("keydown", function (e) {
      var k = e.key, step = e.shiftKey ? 10 : 1;
      if (k === "ArrowLeft") cur.i = Math.max(0, cur.i - step);
      else if (k === "ArrowRight") cur.i = Math.min(n - 1, cur.i + step);
      else if (k === "ArrowUp") cur.row = Math.max(0, cur.row - 1);
      else if (k === "ArrowDown") cur.row = Math.min(t.procs.length - 1, cur.row + 1);
      else return;
      e.preventDefault(); show();
    });
    svg.setAttribute("data-paths", paths);
    box.setAttribute("data-paths", paths);
    counts.timeline += paths;
  }

  // Latency histogram: one bar per power of two of the latency, stacked
  // by why the goroutines became runnable; the percentiles marked. The
  // height is logarithmic in the count (a bar's parts share it in
  // proportion), so that the tail's few slow starts stay visible beside
  // thousands of fast ones.
  function histogram(box, h, col) {
    var W = width(box), H = box.clientHeight || 240, left = 56, bottom = 36, top = 10;
    var svg = canvas(box), nb = h.bounds_ns.length;
    var totals = new Array(nb).fill(0);
    h.series.forEach(function (s) { s.counts.forEach(function (c, i) { totals[i] += c; }); });
    var ymax = Math.max.apply(null, totals.concat([1])), bw = (W - left - 8) / nb, ph = H - top - bottom, bars = 0;
    function hOf(n) { return ph * Math.log(1 + n) / Math.log(1 + ymax); }
    el("line", { x1: left, x2: W - 8, y1: top + ph, y2: top + ph, "class": "axis" }, svg);
    for (var g = 1; g <= ymax; g *= 10) {
      el("line", { x1: left, x2: W - 8, y1: top + ph - hOf(g), y2: top + ph - hOf(g), "class": "grid" }, svg);
      text(left - 4, top + ph - hOf(g) + 4, fmtNum(g), svg, "end");
    }
    text(4, top + ph + 30, "starts (log)", svg);
    var base = new Array(nb).fill(0);
    h.series.forEach(function (s, si) {
      s.counts.forEach(function (c, i) {
        if (!c) return;
        var full = hOf(totals[i]), hh = full * c / totals[i], y = top + ph - full * (base[i] + c) / totals[i];
        el("rect", { x: left + i * bw + 1, y: y, width: Math.max(bw - 2, 1), height: Math.max(hh, 0.5), "class": "hb " + (col.series || [])[si], "data-b": i }, svg);
        base[i] += c; bars++;
      });
    });
    // The buckets' bounds under the axis, thinned to one per 60 px and
    // then to those that do not overlap; the percentiles at the top,
    // beside their marks, stacked in rows where they are close (p90 and
    // p99 often fall in one bucket).
    var every = Math.max(1, Math.ceil(nb / Math.floor((W - left) / 60))), ticks = [];
    h.bounds_ns.forEach(function (b, i) { if (i % every === 0) ticks.push({ at: left + (i + 0.5) * bw, s: "≤" + fmtDur(b) }); });
    labelRow(svg, ticks, top + ph + 14, 14, left - 8, W - 2, { side: "centre", gap: 4 });
    var marks = (h.quantiles || []).map(function (q) {
      var i = 0;
      while (i < nb - 1 && h.bounds_ns[i] < q.ns) i++;
      var x = left + (i + 0.5) * bw;
      el("line", { x1: x, x2: x, y1: top, y2: top + ph, "class": "knee" }, svg);
      return { at: x, s: q.name + " " + fmtDur(q.ns), cls: "mark" };
    });
    labelRow(svg, marks, top + 11, 14, left + 2, W - 10, { pad: 3, gap: 6, rows: marks.length });
    var cur = 0;
    function show(i) {
      var lo = i === 0 ? 0 : h.bounds_ns[i - 1], parts = [];
      h.series.forEach(function (s) { if (s.counts[i]) parts.push(s.name + " " + s.counts[i]); });
      say(box, fmtDur(lo) + "–" + fmtDur(h.bounds_ns[i]) + ": " + totals[i] + " starts" + (parts.length ? " (" + parts.join(", ") + ")" : ""));
    }
    svg.addEventListener("mousemove", function (e) {
      var r = svg.getBoundingClientRect(), i = Math.floor((e.clientX - r.left - left) / bw);
      if (i >= 0 && i < nb) { cur = i; show(i); }
    });
    box.addEventListener("keydown", function (e) {
      if (e.key === "ArrowLeft") cur = Math.max(0, cur - 1);
      else if (e.key === "ArrowRight") cur = Math.min(nb - 1, cur + 1);
      else return;
      e.preventDefault(); show(cur);
    });
    box.setAttribute("data-bars", bars);
    counts.histogram += bars;
  }

  // A curve against a swept parameter: the medians joined, their
  // intervals as bars, the knee marked.
  function curve(box, c, col) {
    var W = width(box), H = box.clientHeight || 260, left = 64, right = 12, top = 26, bottom = 40;
    var svg = canvas(box), ps = c.points;
    var xs = ps.map(function (p) { return p.x; }), xmin = Math.min.apply(null, xs), xmax = Math.max.apply(null, xs);
    if (xmax === xmin) { xmin -= 1; xmax += 1; }
    var ymax = Math.max.apply(null, ps.map(function (p) { return Math.max(p.hi, p.y); }).concat([0])) * 1.1 || 1;
    function X(v) { return left + (W - left - right) * (v - xmin) / (xmax - xmin); }
    function Y(v) { return top + (H - top - bottom) * (1 - v / ymax); }
    el("line", { x1: left, x2: W - right, y1: Y(0), y2: Y(0), "class": "axis" }, svg);
    el("line", { x1: left, x2: left, y1: top, y2: Y(0), "class": "axis" }, svg);
    [0, 0.5, 1].forEach(function (f) { text(left - 4, Y(ymax / 1.1 * f) + 4, fmtNum(ymax / 1.1 * f), svg, "end"); });
    // The x values under the axis, those that would overlap left out
    // (a sweep of 1, 2, 4, … 64 crowds the small ones).
    labelRow(svg, ps.map(function (p) { return { at: X(p.x), s: String(p.x) }; }), Y(0) + 14, 14, 2, W - 2, { side: "centre", gap: 4 });
    labelRow(svg, [{ at: (left + W - right) / 2, s: c.x_label }], H - 6, 14, 2, W - 2, { side: "centre" });
    fit(text(8, 14, c.y_label, svg), W - 16);
    if (c.mark) {
      el("line", { x1: X(c.mark), x2: X(c.mark), y1: top, y2: Y(0), "class": "knee" }, svg);
      labelRow(svg, [{ at: X(c.mark), s: c.mark_label, cls: "mark" }], top + 12, 14, left + 2, W - 2, { pad: 4 });
    }
    el("path", { d: "M" + ps.map(function (p) { return X(p.x).toFixed(1) + "," + Y(p.y).toFixed(1); }).join("L"), "class": "line" }, svg);
    var dots = ps.map(function (p, i) {
      el("line", { x1: X(p.x), x2: X(p.x), y1: Y(p.lo), y2: Y(p.hi), "class": "err" }, svg);
      return el("circle", { cx: X(p.x), cy: Y(p.y), r: 4, "class": "pt", "data-i": i }, svg);
    });
    var cur = 0;
    function show(i) {
      dots.forEach(function (d, j) { d.setAttribute("class", j === i ? "pt sel" : "pt"); });
      var p = ps[i];
      say(box, c.x_label + " " + p.x + ": " + c.y_label + " " + fmtNum(p.y) + " [" + fmtNum(p.lo) + ", " + fmtNum(p.hi) + "]");
    }
    svg.addEventListener("mousemove", function (e) { var i = e.target.getAttribute("data-i"); if (i !== null) { cur = +i; show(cur); } });
    box.addEventListener("keydown", function (e) {
      if (e.key === "ArrowLeft") cur = Math.max(0, cur - 1);
      else if (e.key === "ArrowRight") cur = Math.min(ps.length - 1, cur + 1);
      else return;
      e.preventDefault(); show(cur);
    });
    box.setAttribute("data-points", ps.length);
    counts.curve += ps.length;
  }

  var t0 = performance.now();
  // The boxes are sized by the server: drawing must not move the page.
  var boxes = document.querySelectorAll(".chart[data-kind]");
  var before = Array.prototype.map.call(boxes, function (b) { return b.getBoundingClientRect().height; });
  var pageBefore = document.documentElement.scrollHeight;
  var data = JSON.parse(document.getElementById("sd-data").textContent);
  var draw = { flame: flame, timeline: timeline, histogram: histogram, curve: curve };
  Array.prototype.forEach.call(boxes, function (box) {
    var si = +box.getAttribute("data-set"), set = data.sets[si], kind = box.getAttribute("data-kind");
    try {
      var d = kind === "flame" ? set.flame : kind === "timeline" ? set.timeline : kind === "histogram" ? set.latency : set.curves[+box.getAttribute("data-curve")];
      draw[kind](box, d, (data.colours || [])[si] || {});
      var hint = document.getElementById(box.id + "-detail");
      if (hint && !hint.textContent) hint.textContent = "Hover, or focus and use the arrow keys" + (kind === "flame" ? " (Enter zooms, Escape zooms out)" : "") + ".";
    } catch (e) {
      record("drawing " + kind + ": " + e.message);
    }
  });
  // The labels' geometry, which the browser tests read at 800 and 1280 px:
  // pairs of labels that overlap, and labels cut by their picture's edge.
  // The flame graph's are left out: each is cut to its frame by
  // construction, and they are thousands.
  var overlaps = 0, outside = 0, bad = [];
  Array.prototype.forEach.call(document.querySelectorAll(".chart:not([data-kind=flame]) svg"), function (svg) {
    var box = svg.getBoundingClientRect();
    var rs = Array.prototype.map.call(svg.querySelectorAll("text"), function (t) { return { r: t.getBoundingClientRect(), s: t.textContent }; });
    rs.forEach(function (a, i) {
      if (a.r.left < box.left - 0.5 || a.r.right > box.right + 0.5 || a.r.top < box.top - 0.5 || a.r.bottom > box.bottom + 0.5) {
        outside++; if (bad.length < 5) bad.push("cut: " + a.s);
      }
      for (var j = i + 1; j < rs.length; j++) {
        var c = rs[j].r;
        if (Math.min(a.r.right, c.right) - Math.max(a.r.left, c.left) > 0.5 && Math.min(a.r.bottom, c.bottom) - Math.max(a.r.top, c.top) > 0.5) {
          overlaps++; if (bad.length < 5) bad.push(a.s + " × " + rs[j].s);
        }
      }
    });
  });
  var b = document.body, shift = Math.abs(document.documentElement.scrollHeight - pageBefore);
  Array.prototype.forEach.call(boxes, function (box, i) { shift += Math.abs(box.getBoundingClientRect().height - before[i]); });
  b.setAttribute("data-layout-shift", shift.toFixed(1));
  b.setAttribute("data-label-overlaps", overlaps);
  b.setAttribute("data-labels-cut", outside);
  b.setAttribute("data-label-problems", bad.join(" | "));
  // Wider than the window: a line the reader must scroll sideways for.
  b.setAttribute("data-overflow-x", Math.max(0, document.documentElement.scrollWidth - window.innerWidth));
  b.setAttribute("data-flame-rects", counts.flame);
  b.setAttribute("data-timeline-paths", counts.timeline);
  b.setAttribute("data-histogram-bars", counts.histogram);
  b.setAttribute("data-curve-points", counts.curve);
  b.setAttribute("data-render-ms", (performance.now() - t0).toFixed(1));
  b.setAttribute("data-resources", performance.getEntriesByType("resource").length);
  b.setAttribute("data-rendered", errors.length ? "error" : "ok");
})();
