// Compiles one SCSS text (stdin: {"scss": "...", "loadPaths": [...]}) with dart-sass from
// node_modules, offline; prints {"css": "..."} or {"error": "...", "line": N}.
"use strict";
const sass = require(process.argv[2]);
let input = "";
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const job = JSON.parse(input);
  try {
    const result = sass.compileString(job.scss, { loadPaths: job.loadPaths, style: "expanded" });
    process.stdout.write(JSON.stringify({ css: result.css }));
  } catch (e) {
    const line = e.span && e.span.start ? e.span.start.line + 1 : 0;
    process.stdout.write(JSON.stringify({ error: e.sassMessage || String(e), line: line }));
  }
});
