// Compiles one SCSS text (stdin: {"scss": "...", "root": "<the project folder>", "paths": [the
// theme files' folders]}) with dart-sass from node_modules, offline; prints {"css": "...",
// "loaded": {file: sha256 of what was read, or null where a file was looked for and not
// found}}, or {"error": "...", "line": N, "file": F, "text": T} (F: the file the error is in,
// null for the text given; T: what the error points at), with "outside": P for an import of P
// outside the root, "encoding": P for a file P that is not UTF-8. Every @import/@use/@forward
// goes through one importer that loads files inside the root only: a URL that leaves it (`..`,
// an absolute path, a file: URL, a symlink pointing out) is refused at the line that wrote it.
// As dart-sass resolves them: relative to the importing file first, then the load paths (as
// Quarto's: the theme files' folders, in order; the root last), with partials, extensions and
// index files. The text given is the theme files' text: its relative URLs start at the load
// paths (the first, where it leaves the root, is refused; a later one outside is not looked
// at). sass's own modules (`sass:math`) never reach the importer.
"use strict";
const fs = require("fs");
const path = require("path");
const crypto = require("crypto");
const { pathToFileURL, fileURLToPath } = require("url");
const sass = require(process.argv[2]);

const job = JSON.parse(fs.readFileSync(0, "utf-8"));
const root = fs.realpathSync(job.root);
const entry = new URL("deck-theme:text"); // not a file: its relative URLs go to the load paths
const SYNTAX = { ".sass": "indented", ".css": "css" };
const given = path.resolve(job.root);
const loadPaths = [...new Set([...(job.paths || []), job.root].map((p) => path.resolve(p)))];
const seen = new Map(); // every file looked for: its sha256 as loaded, or null (not there)
let refused = {};

function inside(file, folders = [root, given]) {
  return folders.some((f) => file === f || file.startsWith(f + path.sep));
}

function isFile(file) {
  let found = false;
  try {
    found = fs.statSync(file).isFile();
  } catch {
    found = false;
  }
  if (!found && !seen.has(file)) {
    seen.set(file, null);
  }
  return found;
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

function refuse(file, why) {
  refused = { outside: file };
  throw new Error(why);
}

// The file `file` (a URL's path) loads, refused when it or its link's target is outside.
function canonical(file, url) {
  if (!inside(path.resolve(file))) {
    refuse(file, "outside the project folder");
  }
  const found = resolve(file, url);
  if (found !== null && !inside(fs.realpathSync(found), [root])) {
    refuse(fs.realpathSync(found), "a link pointing outside the project folder");
  }
  return found === null ? null : pathToFileURL(found);
}

const importer = {
  canonicalize(url) {
    if (url.startsWith("file:")) {
      return canonical(fileURLToPath(url), url); // relative to the importing file, or as written
    }
    if (/^[a-z][a-z0-9+.-]*:/i.test(url)) {
      return null; // another scheme: not a file here
    }
    const files = loadPaths.map((dir) => fileURLToPath(new URL(url, pathToFileURL(dir + path.sep))));
    for (const [k, file] of files.entries()) {
      if (k === 0 || inside(path.resolve(file))) {
        const found = canonical(file, url);
        if (found !== null) {
          return found;
        }
      }
    }
    return null;
  },
  load(url) {
    const file = fileURLToPath(url);
    let contents;
    try {
      const bytes = fs.readFileSync(file);
      seen.set(file, crypto.createHash("sha256").update(bytes).digest("hex"));
      contents = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
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
    importers: [importer],
    style: "expanded",
    logger: sass.Logger.silent,
  });
  process.stdout.write(JSON.stringify({ css: result.css, loaded: Object.fromEntries(seen) }));
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
