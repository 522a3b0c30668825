// Settings stage: a project's allowed networks and SSL enforcement → a managed block at the top
// of its server's pg_hba.conf (before the general rules): connections without SSL rejected when
// it is enforced, password logins to its database from the allowed networks, every other TCP
// connection to it rejected. Only servers whose file this process can write
// (local ones) get it; the file is checked through pg_hba_file_rules before pg_reload_conf(),
// and restored when PostgreSQL finds an error. Unix-socket connections are not covered, and a
// reload only affects new connections.
import type { HbaOutcome } from "../door/doorServerSettings";
import type { ServerDoor } from "../door/superuserDoor";
import { checkCidrs, type AllowedNetworks } from "./networkRestrictions";

export type { HbaOutcome };

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

export async function applyHbaBlock(door: ServerDoor, database: string, wanted: DatabaseAccess): Promise<HbaOutcome> {
  // Read again as networks whatever was stored (rows stored by older versions included): only
  // canonical CIDRs ever reach the file.
  const networks = checkCidrs({ v4: wanted.networks.v4, v6: wanted.networks.v6 });
  return door.settings.editHba((text) => withBlock(text, database, { networks, sslOnly: wanted.sslOnly }));
}
