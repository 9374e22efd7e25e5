// Printing a report prints everything: open the collapsed parts (details) before printing.
window.addEventListener("beforeprint", function () {
  document.querySelectorAll("details").forEach(function (d) { d.open = true; });
});
