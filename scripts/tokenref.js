// Writes, for each text of a JSON file (a list of texts, or an object of
// named lists), its token counts by the real OpenAI tokenizers, one JSON
// line per text, for TestApproxTokensAgainstTokenizers. Needs node and the
// js-tiktoken package (npm install js-tiktoken), which carries its
// vocabularies: it runs offline.
//   node scripts/tokenref.js texts.json setname > ref.jsonl
const { getEncoding } = require("js-tiktoken");
const fs = require("fs");
const encs = { o200k: getEncoding("o200k_base"), cl100k: getEncoding("cl100k_base") };
// input: JSON {name: [texts]} or [texts]; output: JSON lines {set, text, o200k, cl100k}
const [inp, set] = process.argv.slice(2);
let d = JSON.parse(fs.readFileSync(inp));
if (Array.isArray(d)) d = { [set]: d };
for (const [k, texts] of Object.entries(d)) for (const t of texts)
  console.log(JSON.stringify({ set: k, text: t, o200k: encs.o200k.encode(t).length, cl100k: encs.cl100k.encode(t).length }));
