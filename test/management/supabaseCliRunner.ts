// Test support: the real `supabase` CLI (the `supabase` dev dependency's Linux binary, @supabase/cli-linux-x64) pointed
// at a server through a profile file, in a temp HOME with telemetry and update checks off.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);
const binary = join(dirname(require.resolve("@supabase/cli-linux-x64/package.json")), "bin", "supabase");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface SupabaseCli {
  home: string;
  run(...args: string[]): Promise<CliResult>;
  close(): void;
}

export function supabaseCli(baseUrl: string, token: string): SupabaseCli {
  const home = mkdtempSync(join(tmpdir(), "supabase-cli-"));
  const profile = join(home, "profile.yaml");
  writeFileSync(profile, [`name: pg-graphql-test`, `api_url: ${baseUrl}`, `dashboard_url: ${baseUrl}`, `project_host: localhost`, ""].join("\n"));
  return {
    home,
    run: (...args) =>
      new Promise((resolve) => {
        execFile(
          binary,
          [...args, "--profile", profile],
          {
            cwd: home,
            timeout: 60_000,
            env: {
              PATH: process.env.PATH ?? "",
              HOME: home,
              SUPABASE_ACCESS_TOKEN: token,
              SUPABASE_TELEMETRY_DISABLED: "1",
              SUPABASE_NO_UPDATE_NOTIFIER: "1",
              CI: "1",
            },
          },
          (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      }),
    close: () => rmSync(home, { recursive: true, force: true }),
  };
}
