// Printing a report prints everything: open the collapsed parts (details) before printing.
window.addEventListener("beforeprint", function () {
  document.querySelectorAll("details").forEach(function (d) { d.open = true; });
});

// A table wider than its box scrolls inside it; its right edge fades while more columns lie beyond it.
function markScrollingTables() {
  document.querySelectorAll(".tablewrap").forEach(function (w) {
    var more = w.scrollWidth - w.clientWidth - w.scrollLeft > 2;
    w.classList.toggle("more", more);
  });
}
window.addEventListener("load", function () {
  markScrollingTables();
  document.querySelectorAll(".tablewrap").forEach(function (w) { w.addEventListener("scroll", markScrollingTables); });
});
window.addEventListener("resize", markScrollingTables);
