// The command line a host runs for a bundle: mcpb's own resolution of
// `server.mcp_config` (getMcpConfigForManifest: defaults, the person's
// settings, ${__dirname}), printed as JSON {command, args, env}.
// Usage: node resolve.mjs MANIFEST BUNDLE_DIR USER_CONFIG_JSON
// It sits beside the node_modules where @anthropic-ai/mcpb is installed.
import { readFileSync } from "node:fs";
import { getMcpConfigForManifest } from "@anthropic-ai/mcpb/browser";

const [manifestPath, extensionPath, userConfig] = process.argv.slice(2);
const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
const config = await getMcpConfigForManifest({
  manifest,
  extensionPath,
  systemDirs: { home: "/home/person", data: "/data", desktop: "/desktop", documents: "/documents", downloads: "/downloads" },
  userConfig: JSON.parse(userConfig),
  pathSeparator: "/",
});
process.stdout.write(JSON.stringify(config ?? null));
