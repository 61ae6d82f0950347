// A minimal MCP Apps host, as a chat client embeds a view: an MCP client on
// the server (Streamable HTTP, through the page's origin), the ext-apps SDK's
// AppBridge on the host side, and the view in a sandboxed iframe. It records
// what the view did on `window.host` for run.mjs to check.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  AppBridge,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
  getToolUiResourceUri,
} from "@modelcontextprotocol/ext-apps/app-bridge";

const host = {
  // What happened, in order: "initialized", "tool-input", "tool-result", ….
  events: [],
  // The tools/call requests the view sent through the host.
  toolCalls: [],
  // The sizes the view reported.
  sizes: [],
  error: null,
  setHostContext: null,
};
window.host = host;

const TOOL = "directory_tree";
const ARGS = { path: ".", depth: 2 };

async function main() {
  const client = new Client({ name: "tree-view-test-host", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", location.href)));

  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === TOOL);
  if (!tool) throw new Error(`the server lists no ${TOOL}`);
  const uri = getToolUiResourceUri(tool);
  if (!uri) throw new Error(`${TOOL} links no view`);
  const { contents } = await client.readResource({ uri });
  const view = contents.find((c) => c.uri === uri);
  if (!view || typeof view.text !== "string") throw new Error(`${uri} has no text content`);
  if (view.mimeType !== RESOURCE_MIME_TYPE) {
    throw new Error(`${uri} is ${view.mimeType}, not ${RESOURCE_MIME_TYPE}`);
  }
  // The browser test's mutants (run.mjs --mutant) replace the served view
  // with a broken variant, to show the checks catch it.
  const mutant = await fetch("/mutant.html");
  const html = mutant.ok ? await mutant.text() : view.text;

  // No allow-same-origin: the view runs at an opaque origin and reaches the
  // server only through the bridge, as in hosts.
  const iframe = document.createElement("iframe");
  iframe.id = "view";
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.title = "directory_tree view";
  document.getElementById("frame").append(iframe);

  let context = {
    theme: "light",
    platform: "web",
    displayMode: "inline",
    availableDisplayModes: ["inline"],
    containerDimensions: { maxHeight: 2000, width: 640 },
    toolInfo: { tool },
  };
  const bridge = new AppBridge(
    client,
    { name: "tree-view-test-host", version: "1.0.0" },
    { serverTools: {}, logging: {} },
    { hostContext: context },
  );
  bridge.onsizechange = ({ width, height }) => {
    host.sizes.push({ width, height });
    if (height !== undefined) iframe.style.height = `${height}px`;
  };
  host.setHostContext = (changes) => {
    context = { ...context, ...changes };
    bridge.setHostContext(context);
  };
  // The host sends the tool's input and result only after the view's
  // handshake (ui/initialize answered, then ui/notifications/initialized).
  bridge.oninitialized = async () => {
    host.events.push("initialized");
    // AppBridge itself lets `initialized` through without `ui/initialize`;
    // strict hosts then never show the view. So does this one.
    if (bridge.getAppVersion() === undefined) {
      host.error = "the view sent ui/notifications/initialized without ui/initialize";
      return;
    }
    try {
      await bridge.sendToolInput({ arguments: ARGS });
      host.events.push("tool-input");
      const result = await client.callTool({ name: TOOL, arguments: ARGS });
      await bridge.sendToolResult(result);
      host.events.push("tool-result");
    } catch (error) {
      host.error = String(error?.stack || error);
    }
  };

  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  // Forwarded to the server as connect() set up, and recorded: the test checks
  // the view's clicks became these calls. Set after connect(), which installs
  // its own forwarding.
  bridge.oncalltool = async (params) => {
    host.toolCalls.push({ name: params.name, arguments: params.arguments });
    return client.callTool(params);
  };
  host.events.push("bridge-connected");
  iframe.srcdoc = html;
}

main().catch((error) => {
  host.error = String(error?.stack || error);
});
