// The tree parser against names built to fool it (node test/parse.mjs).
import assert from "node:assert/strict";
import { parseTree } from "../tree_parse.js";

const names = (node) =>
  node.children === null ? node.name : [node.name, ...node.children.map(names)];

// What directory_tree prints for a name holding a newline and "└── ": the
// newline escaped, the rest as it is.
const tricky = [
  "ws/",
  "├── a\\n└── b",
  "├── dir/",
  "│   ├── x\\n    └── y/",
  "│   └── └── z",
  "└── last",
].join("\n");
const { root, note } = parseTree(tricky, ".", 3);
assert.equal(note, null);
assert.deepEqual(names(root), [
  "ws",
  "a\\n└── b",
  ["dir", ["x\\n    └── y"], "└── z"],
  "last",
]);

// Lines deeper than the tree allows, or no entry at all, are the note:
// never a crash, never a level of a fraction.
for (const text of [
  "ws/\n│   │   └── too deep",
  "ws/\n  └── two spaces",
  "ws/\n├── file\n│   └── under a file",
  "ws/\n(12 entries not shown)",
]) {
  const parsed = parseTree(text, ".", 3);
  assert.notEqual(parsed.note, null, text);
}
console.log("parse: ok");
