// The browser test of the directory_tree view, driven by
// example-server/tests/browser.rs:
//
//   node test/run.mjs MCP_URL OUT_DIR [--mutant NAME]
//
// MCP_URL is a running example-server (Streamable HTTP) whose first root holds
// README.md, src/main.rs and docs/guide/intro.md. This script serves the test
// host (host.html + host.js bundled with esbuild) on loopback, forwards its
// /mcp to MCP_URL, opens it in headless Chromium (Debian's, through
// playwright-core), checks the view, and saves screenshots in OUT_DIR.
// Exit status 0 when every check holds.
import { createServer, request } from "node:http";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { chromium } from "playwright-core";
import { viewHtml, viewSource } from "../bundle.mjs";

const [mcpUrl, outDir, mutantFlag, mutantName] = process.argv.slice(2);
if (!mcpUrl || !outDir || (mutantFlag !== undefined && (mutantFlag !== "--mutant" || !mutantName))) {
  console.error("usage: node test/run.mjs MCP_URL OUT_DIR [--mutant NAME]");
  process.exit(2);
}
const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
const here = (path) => fileURLToPath(new URL(path, import.meta.url));
// A mutant fails by never showing something; a short wait keeps that quick.
const TIMEOUT = mutantName ? 5_000 : 20_000;

// Broken variants of the view (tree_view.js with one edit), served instead of
// the real one to show that this test fails for the faults it is meant to
// catch.
const MUTANTS = {
  // Connects the transport and announces `initialized` without sending
  // `ui/initialize` and waiting for the host's answer.
  "skip-handshake": [
    "app\n  .connect(new PostMessageTransport(window.parent, window.parent))",
    "Object.getPrototypeOf(App.prototype).connect.call(app, new PostMessageTransport(window.parent, window.parent))" +
      '.then(() => app.notification({ method: "ui/notifications/initialized", params: {} }))',
  ],
  // Does the handshake but drops the tool result.
  "ignore-result": ["app.ontoolresult = ", "app.ontoolresultIgnored = "],
};
let mutantHtml = null;
if (mutantName) {
  const edit = MUTANTS[mutantName];
  if (!edit) throw new Error(`no mutant ${mutantName}; there are ${Object.keys(MUTANTS).join(", ")}`);
  const source = viewSource();
  if (!source.includes(edit[0])) throw new Error(`mutant ${mutantName}: tree_view.js no longer has ${edit[0]}`);
  mutantHtml = await viewHtml(source.replace(edit[0], edit[1]));
  console.log(`mutant ${mutantName}: the host shows a view with this fault`);
}

const hostJs = (
  await build({
    entryPoints: [here("host.js")],
    bundle: true,
    format: "esm",
    target: "es2022",
    write: false,
  })
).outputFiles[0].text;
const hostHtml = readFileSync(here("host.html"));

// The page and the MCP server share one origin, as a web host's backend would
// give them; example-server sends no CORS headers.
const upstream = new URL(mcpUrl);
const web = createServer((req, res) => {
  if (req.url === "/") {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(hostHtml);
  } else if (req.url === "/mutant.html" && mutantHtml !== null) {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(mutantHtml);
  } else if (req.url === "/favicon.ico") {
    res.writeHead(204).end();
  } else if (req.url === "/host.js") {
    res.writeHead(200, { "content-type": "text/javascript" }).end(hostJs);
  } else if (req.url.startsWith("/mcp")) {
    const { host: _host, ...headers } = req.headers;
    const forward = request(
      { host: upstream.hostname, port: upstream.port, path: upstream.pathname, method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on("error", (error) => res.writeHead(502).end(String(error)));
    req.pipe(forward);
  } else {
    res.writeHead(404).end();
  }
});
await new Promise((resolve) => web.listen(0, "127.0.0.1", resolve));
const hostUrl = `http://127.0.0.1:${web.address().port}/`;

const browser = await chromium.launch({
  executablePath,
  headless: true,
  // Playwright gives each launch a fresh profile directory.
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});

const log = [];
let failed = false;
function check(ok, what) {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) failed = true;
  return ok;
}

try {
  const page = await browser.newPage({ viewport: { width: 700, height: 600 } });
  page.on("console", (message) => log.push(`console.${message.type()}: ${message.text()}`));
  page.on("pageerror", (error) => log.push(`page error: ${error.message}`));
  await page.goto(hostUrl);
  const host = () => page.evaluate(() => window.host);
  const view = page.frameLocator("iframe#view");

  // 1. The handshake, then the tool result shown as a tree.
  const shown = await view
    .locator('button.entry.file[data-path="README.md"]')
    .waitFor({ timeout: TIMEOUT })
    .then(() => true, () => false);
  let state = await host();
  check(state.error === null, `the host ran without error ${state.error ?? ""}`);
  check(
    JSON.stringify(state.events) === JSON.stringify(["bridge-connected", "initialized", "tool-input", "tool-result"]),
    `handshake first, then input and result: ${JSON.stringify(state.events)}`,
  );
  if (!check(shown, "the view shows the directory_tree result (README.md)")) throw new Error("no tree");
  check(
    (await view.locator('button.entry.file[data-path="src/main.rs"]').count()) === 1,
    "src/main.rs is in the tree, under src/",
  );
  check(
    (await view.locator("#title").textContent()) === "directory_tree . (depth 2)",
    "the view shows the tool input",
  );
  await page.waitForFunction(() => window.host.sizes.some((s) => s.height > 0), null, { timeout: TIMEOUT });
  check(true, "the view reported its size");
  mkdirSync(outDir, { recursive: true });

  // 2. A file click becomes read_file through the host, and its text is shown.
  await view.locator('button.entry.file[data-path="src/main.rs"]').click();
  await view.locator("#file-text", { hasText: "fn main()" }).waitFor({ timeout: TIMEOUT });
  state = await host();
  check(
    state.toolCalls.some((c) => c.name === "read_file" && c.arguments?.path === "src/main.rs"),
    `clicking src/main.rs called read_file through the host: ${JSON.stringify(state.toolCalls)}`,
  );
  check((await view.locator("#file-name").textContent()) === "src/main.rs", "the file's name is shown");

  // 3. A directory the tree stopped at opens with list_directory through the host.
  const guide = view.locator('button.entry.dir[data-path="docs/guide"]');
  check((await guide.getAttribute("aria-expanded")) === "false", "docs/guide starts closed (beyond depth 2)");
  await guide.click();
  const intro = view.locator('button.entry.file[data-path="docs/guide/intro.md"]');
  await intro.waitFor({ timeout: TIMEOUT });
  await intro.click();
  await view.locator("#file-text", { hasText: "Read me first" }).waitFor({ timeout: TIMEOUT });
  state = await host();
  check(
    state.toolCalls.some((c) => c.name === "list_directory" && c.arguments?.path === "docs/guide"),
    "opening docs/guide called list_directory through the host",
  );
  check(
    state.toolCalls.some((c) => c.name === "read_file" && c.arguments?.path === "docs/guide/intro.md"),
    "clicking docs/guide/intro.md called read_file through the host",
  );
  await page.waitForTimeout(200); // let the size change settle for the picture
  await page.locator("iframe#view").screenshot({ path: join(outDir, "tree_view.png") });

  // 4. The host's theme and style variables reach the view.
  const colours = () =>
    view.locator("body").evaluate((body) => {
      const style = getComputedStyle(body);
      return { background: style.backgroundColor, text: style.color, theme: document.documentElement.dataset.theme };
    });
  const light = await colours();
  await page.evaluate(() => window.host.setHostContext({ theme: "dark" }));
  await view.locator('html[data-theme="dark"]').waitFor({ timeout: TIMEOUT });
  const dark = await colours();
  const luminance = (rgb) => {
    const [r, g, b] = rgb.match(/\d+/g).map(Number);
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
  };
  check(
    luminance(light.background) > 0.8 && luminance(dark.background) < 0.2 && luminance(dark.text) > 0.6,
    `dark theme darkens the view: ${JSON.stringify(light)} -> ${JSON.stringify(dark)}`,
  );
  await page.locator("iframe#view").screenshot({ path: join(outDir, "tree_view_dark.png") });
  await page.evaluate(() =>
    window.host.setHostContext({ styles: { variables: { "--color-background-primary": "rgb(1, 2, 3)" } } }),
  );
  const styled = await view
    .locator("body")
    .evaluate(
      (body) =>
        new Promise((resolve) => {
          const until = Date.now() + 5000;
          const poll = () => {
            const bg = getComputedStyle(body).backgroundColor;
            if (bg === "rgb(1, 2, 3)" || Date.now() > until) resolve(bg);
            else setTimeout(poll, 50);
          };
          poll();
        }),
    );
  check(styled === "rgb(1, 2, 3)", `the host's --color-background-primary is the view's background: ${styled}`);
} catch (error) {
  failed = true;
  console.log(`FAIL ${error.message}`);
} finally {
  if (failed) {
    console.log("host state:", JSON.stringify(await browser.contexts()[0]?.pages()[0]?.evaluate(() => window.host).catch(() => null)));
    for (const line of log) console.log(line);
  }
  await browser.close();
  web.close();
}
process.exit(failed ? 1 : 0);
