// Writes ../src/tree_view.html, the view example-server serves at
// ui://workspace/tree (see bundle.mjs). The output is committed so that
// `cargo build` needs no Node.
//
//   npm ci && node build.mjs           write ../src/tree_view.html
//   node build.mjs --check             fail if the committed file is stale
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { viewHtml, viewSource } from "./bundle.mjs";

const output = fileURLToPath(new URL("../src/tree_view.html", import.meta.url));
const html = await viewHtml(viewSource());

if (process.argv.includes("--check")) {
  if (readFileSync(output, "utf8") !== html) {
    console.error("example-server/src/tree_view.html is stale: run `npm ci && node build.mjs` in example-server/view");
    process.exit(1);
  }
  console.log("example-server/src/tree_view.html is up to date");
} else {
  writeFileSync(output, html);
  console.log(`wrote ${output} (${html.length} bytes)`);
}
