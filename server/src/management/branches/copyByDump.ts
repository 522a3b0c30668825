// Branches stage: a parent's database that other sessions hold open (so it cannot be a
// template) → its user schemas and rows copied into the branch's new database with pg_dump and
// pg_restore, every object made by the branch's owner role, in one transaction.
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { withoutPassword } from "../platform/connectionUrl";
import { withConnection } from "../platform/sql";

/** Schemas the project template makes, which the branch database already has. */
const templateSchemas = ["pg_catalog", "information_schema", "pg_toast", "graphql", "graphql_public", "auth", "supabase_migrations"];

function run(command: string, args: string[], password?: string): { done: Promise<void>; stdout: NodeJS.ReadableStream } {
  // Passwords go through the environment: a command line is visible to every local user.
  const env = password === undefined ? process.env : { ...process.env, PGPASSWORD: password };
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], env });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const done = new Promise<void>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`${command} failed (${code}): ${stderr.trim()}`))));
  });
  return { done, stdout: child.stdout! };
}

export async function copyByDump(parentUrl: string, branchUrl: string, branchOwner: string, log: (line: string) => void): Promise<void> {
  const schemas = await withConnection(parentUrl, (sql) =>
    sql.rows<{ nspname: string }>(
      `select nspname from pg_namespace n where not (nspname = any($1)) and nspname not like 'pg\\_%'
         and not exists (select 1 from pg_depend d where d.classid = 'pg_namespace'::regclass and d.objid = n.oid and d.deptype = 'e')`,
      [templateSchemas],
    ),
  );
  const selected = schemas.flatMap((s) => ["--schema", s.nspname]);
  const dir = await mkdtemp(join(tmpdir(), "branch-copy-"));
  try {
    const dumpFile = join(dir, "parent.dump");
    const from = withoutPassword(parentUrl);
    const to = withoutPassword(branchUrl);
    await run("pg_dump", ["--format=custom", "--no-owner", "--no-privileges", ...selected, `--file=${dumpFile}`, `--dbname=${from.url}`], from.password).done;
    // The branch database already has `public` (from the template): its CREATE SCHEMA is left out.
    const listing = run("pg_restore", ["--list", dumpFile]);
    let list = "";
    listing.stdout.on("data", (chunk: Buffer) => (list += chunk.toString("utf8")));
    await listing.done;
    const listFile = join(dir, "restore.list");
    await writeFile(listFile, list.split("\n").filter((line) => !/ SCHEMA - public /.test(line)).join("\n"));
    await run("pg_restore", ["--no-owner", "--no-privileges", `--role=${branchOwner}`, "--single-transaction", "--exit-on-error", `--use-list=${listFile}`, `--dbname=${to.url}`, dumpFile], to.password).done;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  log(`copied schemas ${schemas.map((s) => s.nspname).join(", ")} by dump and restore: the parent was in use`);
}
