// Settings stage (execute side): a database URL → its pg_dump (custom format) as bytes, and such
// bytes → restored into a database with pg_restore in one transaction. The tools come from PATH
// and must match the server's major version.
import { spawn } from "node:child_process";

function run(command: string, args: string[], input?: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => err.push(b));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new Error(`${command} failed: ${Buffer.concat(err).toString("utf8").trim() || `exit code ${code}`}`));
    });
    child.stdin.on("error", () => {});
    child.stdin.end(input);
  });
}

export function dumpDatabase(url: string): Promise<Buffer> {
  return run("pg_dump", ["--format=custom", "--dbname", url]);
}

export async function restoreDatabase(url: string, dump: Buffer): Promise<void> {
  await run("pg_restore", ["--exit-on-error", "--single-transaction", "--dbname", url], dump);
}
