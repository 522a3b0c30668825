// Test support: the official Supabase MCP server (@supabase/mcp-server-supabase, unmodified) run
// over stdio as its users run it — `--api-url` pointing at a server, a personal access token,
// `--features` without `docs` (which fetches its schema from the internet) — driven by the MCP
// SDK's client. A tool's answer is its structured content, or its error text.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const require = createRequire(import.meta.url);
// The package's bin (dist/cli.js), beside the entry its exports name.
const cli = join(dirname(require.resolve("@supabase/mcp-server-supabase")), "cli.js");

/** Every feature group that works offline (all but `docs`). */
export const offlineFeatures = ["account", "database", "debugging", "development", "functions", "branching", "storage"];

export type ToolOutcome = { kind: "ok"; value: any; text: string } | { kind: "error"; message: string };

export interface McpSession {
  client: Client;
  /** Names of the tools the server lists. */
  tools(): Promise<string[]>;
  call(name: string, args?: Record<string, unknown>): Promise<ToolOutcome>;
  /** The tool's structured answer; throws with the tool's message when it failed. */
  ok(name: string, args?: Record<string, unknown>): Promise<any>;
  /** The tool's error message; throws when it succeeded. */
  error(name: string, args?: Record<string, unknown>): Promise<string>;
  /** What the server printed on stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

export interface McpOptions {
  readOnly?: boolean;
  projectRef?: string;
  features?: string[];
}

export async function startMcpServer(apiUrl: string, token: string, options: McpOptions = {}): Promise<McpSession> {
  const args = [cli, "--api-url", apiUrl, "--features", (options.features ?? offlineFeatures).join(",")];
  if (options.readOnly) args.push("--read-only");
  if (options.projectRef) args.push("--project-ref", options.projectRef);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", SUPABASE_ACCESS_TOKEN: token },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "pg-graphql-tests", version: "1.0.0" });
  await client.connect(transport);
  const call = async (name: string, toolArgs: Record<string, unknown> = {}): Promise<ToolOutcome> => {
    const result = (await client.callTool({ name, arguments: toolArgs }, undefined, { timeout: 120_000 })) as {
      isError?: boolean;
      content?: { type: string; text?: string }[];
      structuredContent?: unknown;
    };
    const text = (result.content ?? []).map((c) => c.text ?? "").join("\n");
    if (result.isError) return { kind: "error", message: errorMessage(text) };
    return { kind: "ok", value: result.structuredContent ?? parsed(text), text };
  };
  return {
    client,
    tools: async () => (await client.listTools()).tools.map((t) => t.name).sort(),
    call,
    async ok(name, toolArgs) {
      const outcome = await call(name, toolArgs);
      if (outcome.kind === "error") throw new Error(`${name} failed: ${outcome.message}`);
      return outcome.value;
    },
    async error(name, toolArgs) {
      const outcome = await call(name, toolArgs);
      if (outcome.kind === "ok") throw new Error(`${name} succeeded: ${outcome.text}`);
      return outcome.message;
    },
    stderr: () => stderr,
    close: () => client.close(),
  };
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A failed tool's message: `{"error": {"message": ...}}` as the server words it, else the text. */
function errorMessage(text: string): string {
  const value = parsed(text) as { error?: { message?: unknown } } | string;
  return typeof value === "object" && value !== null && typeof value.error?.message === "string" ? value.error.message : text;
}

/** The JSON a tool wrapped between its untrusted-data boundaries (execute_sql, get_logs, query_logs). */
export function untrustedJson(text: string): any {
  const match = /<untrusted-data-([0-9a-f-]+)>\n([\s\S]*)\n<\/untrusted-data-\1>/.exec(text);
  if (!match) throw new Error(`no untrusted-data boundaries in ${text.slice(0, 200)}`);
  return JSON.parse(match[2]!);
}
