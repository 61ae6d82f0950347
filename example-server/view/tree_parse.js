// directory_tree's text, read back into a tree. No DOM and no SDK here, so
// that node runs its test (test/parse.mjs) without a browser.

export function join(dir, name) {
  return dir === "." || dir === "" ? name : `${dir.replace(/\/+$/, "")}/${name}`;
}

const INDENTS = ["│   ", "    "];
const BRANCHES = ["├── ", "└── "];

// The level of an entry line (1 for the root's children) and where its name
// starts, or null for a line that is not an entry. The prefix is read from
// the start, four characters a step, so that nothing in a name (which the
// server escapes, `\n` included, and which may hold "└── ") can move it.
function entryAt(line) {
  let at = 0;
  while (INDENTS.some((indent) => line.startsWith(indent, at))) at += 4;
  if (!BRANCHES.some((branch) => line.startsWith(branch, at))) return null;
  return { level: at / 4 + 1, nameAt: at + 4 };
}

// directory_tree answers with text: the root's name, then one line per entry,
// indented by four characters a level ("│   " or "    "), each entry after
// "├── " or "└── ", directories ending in "/". A line that is no entry, or
// deeper than the entry before it allows, is the tree's note.
export function parseTree(text, base, maxDepth) {
  const lines = text.split("\n").filter((line) => line.length > 0);
  const rootName = (lines.shift() || base).replace(/\/$/, "");
  const root = { name: rootName, path: base, dir: true, children: [] };
  const stack = [root];
  let note = null;
  for (const line of lines) {
    const entry = entryAt(line);
    const parent = entry && stack[entry.level - 1];
    if (!entry || entry.level > stack.length || !parent.children) {
      note = line;
      continue;
    }
    let name = line.slice(entry.nameAt);
    const dir = name.endsWith("/");
    if (dir) name = name.slice(0, -1);
    stack.length = entry.level;
    const node = { name, path: join(parent.path, name), dir, children: null };
    // A directory the tree stopped at has children nobody listed yet; one above
    // that depth has exactly the children that follow it (maybe none).
    if (dir && entry.level < maxDepth) node.children = [];
    parent.children.push(node);
    stack.push(node);
  }
  return { root, note };
}
