// Compiles one SCSS text (stdin: {"scss": "...", "root": "<the project folder>"}) with dart-sass
// from node_modules, offline; prints {"css": "..."}, or {"error": "...", "line": N, "file": F,
// "text": T} (F: the file the error is in, null for the text given; T: what the error points
// at), with "outside": P for an import of P outside the root, "encoding": P for a file P that
// is not UTF-8. Every @import/@use/@forward goes through one importer that loads files inside
// the root only: a URL that leaves it (`..`, an absolute path, a file: URL, a symlink pointing
// out) is refused at the line that wrote it. Relative URLs are resolved against the importing
// file (the text given stands in the root) with dart-sass's partials, extensions and index
// files; sass's own modules (`sass:math`) never reach the importer.
"use strict";
const fs = require("fs");
const path = require("path");
const { pathToFileURL, fileURLToPath } = require("url");
const sass = require(process.argv[2]);

const job = JSON.parse(fs.readFileSync(0, "utf-8"));
const root = fs.realpathSync(job.root);
const entry = pathToFileURL(path.join(root, "[theme].scss"));
const SYNTAX = { ".sass": "indented", ".css": "css" };
const given = path.resolve(job.root);
let refused = {};

function inside(file, folders = [root, given]) {
  return folders.some((f) => file === f || file.startsWith(f + path.sep));
}

function isFile(file) {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function one(found, url) {
  if (found.length > 1) {
    throw new Error(`it is not clear which file \`${url}\` imports: ${found.join(", ")}`);
  }
  return found.length ? found[0] : null;
}

// The file dart-sass would load for `file` (no extension: .sass/.scss, then .css; partials
// `_name`; then `name/index`), or null.
function tryPath(file, url) {
  const dir = path.dirname(file);
  const base = path.basename(file);
  const both = (name) => [path.join(dir, "_" + name), path.join(dir, name)].filter(isFile);
  if ([".sass", ".scss", ".css"].includes(path.extname(base))) {
    return one(both(base), url);
  }
  return one([...both(base + ".sass"), ...both(base + ".scss")], url) || one(both(base + ".css"), url);
}

function resolve(file, url) {
  const found = tryPath(file, url);
  if (found !== null || path.extname(file)) {
    return found;
  }
  return tryPath(path.join(file, "index"), url);
}

const importer = {
  canonicalize(url) {
    if (!url.startsWith("file:")) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(url)) {
        return null; // another scheme: not a file here
      }
      url = new URL(url, entry).href; // a load path's URL: from the root
    }
    const file = fileURLToPath(url);
    if (!inside(path.resolve(file))) {
      refused = { outside: file };
      throw new Error("outside the project folder");
    }
    const found = resolve(file, url);
    if (found !== null && !inside(fs.realpathSync(found), [root])) {
      refused = { outside: fs.realpathSync(found) };
      throw new Error("a link pointing outside the project folder");
    }
    return found === null ? null : pathToFileURL(found);
  },
  load(canonical) {
    const file = fileURLToPath(canonical);
    let contents;
    try {
      contents = new TextDecoder("utf-8", { fatal: true }).decode(fs.readFileSync(file));
    } catch (e) {
      if (e instanceof TypeError) {
        refused = { encoding: file };
      }
      throw e;
    }
    return { contents, syntax: SYNTAX[path.extname(file)] || "scss" };
  },
};

try {
  const result = sass.compileString(job.scss, {
    url: entry,
    importer: importer,
    importers: [importer],
    style: "expanded",
    logger: sass.Logger.silent,
  });
  process.stdout.write(JSON.stringify({ css: result.css }));
} catch (e) {
  const span = e.span;
  const url = span && span.url ? span.url.href : null;
  const found = {
    error: (e.sassMessage || String(e)).replace(/\.$/, ""),
    line: span && span.start ? span.start.line + 1 : 0,
    file: url && url !== entry.href && url.startsWith("file:") ? fileURLToPath(url) : null,
    text: span && span.text ? span.text.split("\n")[0].slice(0, 80) : "",
  };
  process.stdout.write(JSON.stringify({ ...found, ...refused }));
}
