// Renders {macros, formulas: [{tex, display}]} (or a bare list of formulas) read from stdin
// with KaTeX; prints a JSON list of {html} or {error}. One Node process renders every formula
// of a build; the deck's macros (its \newcommand definitions) hold in every formula.
const katex = require(process.argv[2]);
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const job = JSON.parse(input);
  const formulas = Array.isArray(job) ? job : job.formulas;
  const macros = Array.isArray(job) ? {} : job.macros || {};
  const out = formulas.map(({ tex, display }) => {
    try {
      const options = { displayMode: display, throwOnError: true, output: "htmlAndMathml" };
      return { html: katex.renderToString(tex, { ...options, macros: { ...macros } }) };
    } catch (e) {
      return { error: String(e.message || e) };
    }
  });
  process.stdout.write(JSON.stringify(out));
});
