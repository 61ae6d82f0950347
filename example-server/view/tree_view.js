// The directory_tree view: an MCP App (SEP-1865) built on the official
// @modelcontextprotocol/ext-apps SDK. build.mjs bundles this file into
// template.html and writes ../src/tree_view.html, which example-server serves
// at ui://workspace/tree.
//
// The SDK's App does the protocol work a compliant host insists on: it sends
// `ui/initialize`, waits for the host's answer, then sends
// `ui/notifications/initialized`; only after that does the host send the tool
// input and result. It also reports size changes (autoResize).
import {
  App,
  PostMessageTransport,
  applyDocumentTheme,
  applyHostFonts,
  applyHostStyleVariables,
} from "@modelcontextprotocol/ext-apps";
import { join, parseTree } from "./tree_parse.js";

const treeEl = document.getElementById("tree");
const titleEl = document.getElementById("title");
const fileEl = document.getElementById("file");
const fileNameEl = document.getElementById("file-name");
const fileTextEl = document.getElementById("file-text");

const app = new App({ name: "workspace-tree", version: "1.0.0" }, {});

// The arguments of the directory_tree call this view shows; `path` is where
// the tree's relative names start, `depth` tells an empty directory from one
// the tree stopped at.
let input = { path: ".", depth: 3 };
let selected = null;

function showMessage(text, className) {
  const p = document.createElement("p");
  p.className = className;
  p.textContent = text;
  treeEl.replaceChildren(p);
}

function textOf(result) {
  return (result.content || [])
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("\n");
}

function entryButton(node) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = `entry ${node.dir ? "dir" : "file"}`;
  button.textContent = node.dir ? `${node.name}/` : node.name;
  button.title = node.path;
  button.dataset.path = node.path;
  return button;
}

function renderChildren(node) {
  const ul = document.createElement("ul");
  for (const child of node.children) ul.append(renderNode(child));
  if (node.children.length === 0) {
    const li = document.createElement("li");
    li.className = "note";
    li.textContent = "(empty)";
    ul.append(li);
  }
  return ul;
}

function renderNode(node) {
  const li = document.createElement("li");
  const button = entryButton(node);
  li.append(button);
  if (node.dir) {
    const open = node.children !== null;
    button.setAttribute("aria-expanded", String(open));
    if (open) li.append(renderChildren(node));
    button.addEventListener("click", () => toggle(node, li, button));
  } else {
    button.addEventListener("click", () => openFile(node, button));
  }
  return li;
}

// A directory opens by asking the host to call list_directory on the server:
// the view has no connection of its own.
async function toggle(node, li, button) {
  const list = li.querySelector(":scope > ul");
  if (list) {
    list.remove();
    button.setAttribute("aria-expanded", "false");
    return;
  }
  if (node.children === null) {
    button.disabled = true;
    try {
      const result = await app.callServerTool({
        name: "list_directory",
        arguments: { path: node.path, depth: 1 },
      });
      if (result.isError) throw new Error(textOf(result));
      const listing = result.structuredContent || JSON.parse(textOf(result));
      node.children = listing.entries
        .map((entry) => {
          const dir = entry.endsWith("/");
          const name = dir ? entry.slice(0, -1) : entry;
          return { name, path: join(node.path, name), dir, children: null };
        })
        .sort((a, b) => Number(b.dir) - Number(a.dir) || a.name.localeCompare(b.name));
    } catch (error) {
      const note = document.createElement("ul");
      note.className = "error";
      note.textContent = `${node.path}: ${error.message}`;
      li.append(note);
      return;
    } finally {
      button.disabled = false;
    }
  }
  li.append(renderChildren(node));
  button.setAttribute("aria-expanded", "true");
}

// A file is read by asking the host to call read_file on the server.
async function openFile(node, button) {
  if (selected) selected.classList.remove("selected");
  selected = button;
  button.classList.add("selected");
  fileEl.hidden = false;
  fileNameEl.textContent = node.path;
  fileTextEl.className = "note";
  fileTextEl.textContent = "Reading…";
  try {
    const result = await app.callServerTool({ name: "read_file", arguments: { path: node.path } });
    fileTextEl.className = result.isError ? "error" : "";
    fileTextEl.textContent = textOf(result);
  } catch (error) {
    fileTextEl.className = "error";
    fileTextEl.textContent = error.message;
  }
}

function applyContext(context) {
  if (!context) return;
  if (context.theme) applyDocumentTheme(context.theme);
  if (context.styles?.variables) applyHostStyleVariables(context.styles.variables);
  if (context.styles?.css?.fonts) applyHostFonts(context.styles.css.fonts);
}

// Handlers go in before connect(): the host may send the input and the result
// right after the handshake.
app.ontoolinput = ({ arguments: args }) => {
  input = { path: args?.path ?? ".", depth: args?.depth ?? 3 };
  titleEl.textContent = `directory_tree ${input.path} (depth ${input.depth})`;
  showMessage("Running directory_tree…", "empty");
};

app.ontoolresult = (result) => {
  if (result.isError) {
    showMessage(textOf(result), "error");
    return;
  }
  const { root, note } = parseTree(textOf(result), input.path, input.depth);
  const ul = document.createElement("ul");
  ul.append(renderNode(root));
  treeEl.replaceChildren(ul);
  if (note) {
    const p = document.createElement("p");
    p.className = "note";
    p.textContent = note;
    treeEl.append(p);
  }
};

app.ontoolcancelled = () => showMessage("The directory_tree call was cancelled.", "error");

app.onhostcontextchanged = applyContext;

app.onteardown = async () => ({});

app
  .connect(new PostMessageTransport(window.parent, window.parent))
  .then(() => applyContext(app.getHostContext()))
  .catch((error) => showMessage(`Could not connect to the host: ${error.message}`, "error"));
