// schedoctor HTML report: where the pictures' labels go, so that no two
// overlap whatever the window's width. Pure (no page access): the browser
// test TestLabelLayout runs it on close marks on its own.
"use strict";

// sdPlaceLabels places labels along a horizontal axis, each beside the
// position it labels, so that no two overlap and none leaves [lo, hi].
//
// labels: [{at, w}]: the position it labels and the label's width (px).
// opt.side: "beside" (the default) puts a label pad px to the right of its
//   mark, or to its left where the right has no room (a mark near the
//   right edge); "centre" centres it on the mark.
// opt.rows: how many rows may be stacked; a label that fits in none is
//   dropped (row -1). A mark's label is never dropped while rows remain:
//   give as many rows as labels to keep all (the percentiles); one row
//   thins an axis's ticks.
// opt.pad: the space between a mark and its label (beside); opt.gap: the
//   least space between two labels of a row.
//
// Returns, per label in order, {x, row}: x its left edge (draw it with
// text-anchor start), row its row from 0, or -1 when dropped. The labels
// are placed in the given order: an earlier one keeps its place.
function sdPlaceLabels(labels, lo, hi, opt) {
  opt = opt || {};
  var pad = opt.pad || 0, gap = opt.gap || 0, maxRows = Math.max(opt.rows || 1, 1), centre = opt.side === "centre";
  var rows = [];
  return labels.map(function (lb) {
    var w = Math.min(lb.w, hi - lo), l;
    if (centre) {
      l = lb.at - w / 2;
    } else {
      l = lb.at + pad;
      if (l + w > hi) l = lb.at - pad - w; // no room on the right: on the left
    }
    l = Math.max(lo, Math.min(l, hi - w));
    var r = l + w;
    for (var row = 0; row < maxRows; row++) {
      var placed = rows[row] || (rows[row] = []);
      var free = placed.every(function (iv) { return r + gap <= iv[0] || l >= iv[1] + gap; });
      if (free) {
        placed.push([l, r]);
        return { x: l, row: row };
      }
    }
    return { x: l, row: -1 };
  });
}
