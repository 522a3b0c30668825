// Project stage (execute side): pg_dump and pg_restore as a project's own logins. A dump runs on
// the read-only login (it reads every row, RLS bypassed, and can change nothing); a restore runs
// on the owner login into a database copied from the project template, with the restore list
// leaving out what that database already has and what only a superuser could make, so whatever
// a dumped object runs while it loads (CHECK constraints, defaults, index expressions) runs as
// the tenant. Owners are not restored (the owner login makes everything); grants are.
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { withoutPassword } from "../platform/connectionUrl";
import type { ProjectLogin } from "../tenants/projectLogins";

function run(command: string, args: string[], login: ProjectLogin | undefined, input?: Buffer): Promise<Buffer> {
  // The password and the session's settings go through the environment: a command line is
  // visible to every local user.
  const { url, password } = login ? withoutPassword(login.url) : { url: undefined, password: undefined };
  const env = { ...process.env, PGPASSWORD: password ?? "", PGOPTIONS: login?.options ?? "" };
  return new Promise((resolve, reject) => {
    const child = spawn(command, url === undefined ? args : [...args, `--dbname=${url}`], { stdio: ["pipe", "pipe", "pipe"], env });
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

/** The database as pg_dump's custom format, read on the project's read-only login. */
export function dumpAs(login: ProjectLogin, options: { schemas?: string[]; schemaOnly?: boolean } = {}): Promise<Buffer> {
  const schemas = (options.schemas ?? []).flatMap((s) => ["--schema", s]);
  return run("pg_dump", ["--format=custom", ...(options.schemaOnly ? ["--schema-only"] : []), ...schemas], login);
}

/** One line of `pg_restore --list`: `id; tableoid oid <type> <schema> <name> <owner>`. */
export interface ListEntry {
  line: string;
  /** `<type> <schema> <name>`: the same object has the same key in another database's dump. */
  key: string;
  owner: string;
  type: string;
}

const entryPattern = /^\d+; \d+ \d+ (.*) (\S+)$/;

export async function listing(dump: Buffer): Promise<ListEntry[]> {
  const text = (await run("pg_restore", ["--list"], undefined, dump)).toString("utf8");
  const entries: ListEntry[] = [];
  for (const line of text.split("\n")) {
    const match = entryPattern.exec(line);
    if (!match) continue;
    const key = match[1]!;
    entries.push({ line, key, owner: match[2]!, type: /^(DEFAULT ACL|TABLE DATA|SEQUENCE SET|[A-Z ]+?) /.exec(key)?.[1] ?? key });
  }
  return entries;
}

/** What a restore as `restorer` into a copy of the project template keeps of a dump. */
export interface RestorePlan {
  /** Entries the target database already has (by key), from its own listing. */
  present: Set<string>;
  /** Roles whose objects are the platform's (superusers): never restored by a tenant's login. */
  platformRoles: Set<string>;
  /** The role the restoring login acts as, and the roles it may act for. */
  actsAs: Set<string>;
  /** Extensions the restoring login may create itself (trusted ones). */
  trusted: Set<string>;
}

export interface Selection {
  kept: ListEntry[];
  /** Untrusted extensions the dump needs, to be made beforehand by the platform. */
  extensions: string[];
}

export function selectEntries(entries: ListEntry[], plan: RestorePlan): Selection {
  const extensions: string[] = [];
  const own = (name: string) => !plan.present.has(`EXTENSION - ${name}`) && plan.trusted.has(name);
  const kept = entries.filter((e) => {
    if (e.type === "EXTENSION") {
      const name = e.key.split(" ").at(-1)!;
      if (!plan.present.has(e.key) && !plan.trusted.has(name)) extensions.push(name);
      return own(name);
    }
    if (e.type === "COMMENT" && e.key.startsWith("COMMENT - EXTENSION ")) return own(e.key.split(" ").at(-1)!);
    if (e.type === "DEFAULT ACL") return plan.actsAs.has(e.owner);
    // A copy of the template always has `public`, whether or not its dump says so.
    if (e.key === "SCHEMA - public") return false;
    return !(plan.present.has(e.key) && plan.platformRoles.has(e.owner));
  });
  return { kept, extensions };
}

/** Restores the selected entries in one transaction on `login`; nothing stays when one fails. */
export async function restoreAs(login: ProjectLogin, dump: Buffer, kept: ListEntry[], options: { privileges: boolean }): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "restore-"));
  try {
    const listFile = join(dir, "restore.list");
    await writeFile(listFile, kept.map((e) => e.line).join("\n") + "\n", { mode: 0o600 });
    const dumpFile = join(dir, "dump");
    await writeFile(dumpFile, dump, { mode: 0o600 });
    await run(
      "pg_restore",
      ["--no-owner", ...(options.privileges ? [] : ["--no-privileges"]), "--single-transaction", "--exit-on-error", `--use-list=${listFile}`, dumpFile],
      login,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
