// Settings stage: a project's allowed networks and SSL enforcement → a managed block at the top
// of its server's pg_hba.conf (before the general rules): connections without SSL rejected when
// it is enforced, password logins to its database from the allowed networks, every other TCP
// connection to it rejected. Only servers whose file this process can write
// (local ones) get it; the file is checked through pg_hba_file_rules before pg_reload_conf(),
// and restored when PostgreSQL finds an error. Unix-socket connections are not covered, and a
// reload only affects new connections.
import { constants } from "node:fs";
import { access, readFile, writeFile } from "node:fs/promises";
import { withConnection } from "../platform/sql";
import type { AllowedNetworks } from "./networkRestrictions";

export type HbaOutcome = { kind: "applied"; file: string } | { kind: "notManaged"; reason: string };

const begin = (database: string) => `# BEGIN managed network restrictions of database ${database}`;
const end = (database: string) => `# END managed network restrictions of database ${database}`;

export interface DatabaseAccess {
  networks: AllowedNetworks;
  sslOnly: boolean;
}

function isOpen(networks: AllowedNetworks): boolean {
  return networks.v4.includes("0.0.0.0/0") && networks.v6.includes("::/0");
}

function rules(quoted: string, access: DatabaseAccess): string[] {
  const ssl = access.sslOnly ? [`hostnossl ${quoted} all all reject`] : [];
  if (isOpen(access.networks)) return ssl;
  return [
    ...ssl,
    ...[...access.networks.v4, ...access.networks.v6].map((cidr) => `host ${quoted} all ${cidr} scram-sha-256`),
    `host ${quoted} all 0.0.0.0/0 reject`,
    `host ${quoted} all ::/0 reject`,
  ];
}

/** The file's text without this database's block, then with the new block first. */
export function withBlock(text: string, database: string, access: DatabaseAccess): string {
  const lines = text.split("\n");
  const from = lines.indexOf(begin(database));
  const to = lines.indexOf(end(database));
  const rest = from >= 0 && to > from ? [...lines.slice(0, from), ...lines.slice(to + 1)] : lines;
  const block = rules(`"${database}"`, access);
  if (block.length === 0) return rest.join("\n");
  return [begin(database), ...block, end(database), ...rest].join("\n");
}

export async function applyHbaBlock(adminUrl: string, database: string, wanted: DatabaseAccess): Promise<HbaOutcome> {
  return withConnection(adminUrl, async (sql) => {
    const file = (await sql.one<{ f: string }>("select current_setting('hba_file') as f"))!.f;
    try {
      await access(file, constants.R_OK | constants.W_OK);
    } catch {
      return { kind: "notManaged", reason: `this server's pg_hba.conf (${file}) is not a file this process can write` };
    }
    const before = await readFile(file, "utf8");
    await writeFile(file, withBlock(before, database, wanted));
    const errors = await sql.rows<{ line_number: number; error: string }>("select line_number, error from pg_hba_file_rules where error is not null");
    if (errors.length > 0) {
      await writeFile(file, before);
      throw new Error(`pg_hba.conf would not load: ${errors.map((e) => `line ${e.line_number}: ${e.error}`).join("; ")}`);
    }
    await sql.rows("select pg_reload_conf()");
    return { kind: "applied", file };
  });
}
