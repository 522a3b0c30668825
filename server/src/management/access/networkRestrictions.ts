// Settings stage: a project's allowed networks (v4 and v6 CIDRs, read as PostgreSQL's cidr type
// reads them: cidr.ts) → stored, enforced by the data API on the client's address, and on servers whose
// pg_hba.conf this process can write, by a managed block of rules (see hbaBlock.ts).
import { BlockList, isIPv4, isIPv6 } from "node:net";
import { invalid } from "../errors/domainError";
import type { Sql } from "../platform/sql";
import { parseCidr } from "./cidr";
import { isoText } from "../platform/isoColumn";

export interface AllowedNetworks {
  v4: string[];
  v6: string[];
}

export interface RestrictionsRow extends AllowedNetworks {
  old_v4: string[] | null;
  old_v6: string[] | null;
  status: "stored" | "applied";
  updated_at: string | null;
  applied_at: string | null;
}

export const unrestricted: AllowedNetworks = { v4: ["0.0.0.0/0"], v6: ["::/0"] };


export class RestrictionsStore {
  constructor(private readonly sql: Sql) {}

  async get(ref: string): Promise<RestrictionsRow> {
    const row = await this.sql.one<RestrictionsRow>(
      `select allowed_v4 as v4, allowed_v6 as v6, old_v4, old_v6, status, ${isoText("updated_at")} as updated_at, ${isoText("applied_at")} as applied_at
         from platform.network_restrictions where ref = $1`,
      [ref],
    );
    return row ?? { ...unrestricted, old_v4: null, old_v6: null, status: "applied", updated_at: null, applied_at: null };
  }

  async store(ref: string, next: AllowedNetworks): Promise<void> {
    await this.sql.rows(
      `insert into platform.network_restrictions as n (ref, allowed_v4, allowed_v6, status) values ($1, $2, $3, 'stored')
       on conflict (ref) do update set old_v4 = n.allowed_v4, old_v6 = n.allowed_v6, allowed_v4 = excluded.allowed_v4,
         allowed_v6 = excluded.allowed_v6, status = 'stored', updated_at = now()`,
      [ref, next.v4, next.v6],
    );
  }

  async markApplied(ref: string): Promise<void> {
    await this.sql.rows("update platform.network_restrictions set status = 'applied', applied_at = now(), old_v4 = null, old_v6 = null where ref = $1", [ref]);
  }
}

/** Each CIDR in its canonical form (PostgreSQL's `cidr` reading, computed here); a v6 one in
 * the v4 list is an error. */
export function checkCidrs(networks: AllowedNetworks): AllowedNetworks {
  const canonical = (list: string[], family: 4 | 6, field: string): string[] => {
    const out: string[] = [];
    for (const text of list) {
      const cidr = parseCidr(text);
      if (cidr.kind === "invalid") throw invalid(`${field}: ${cidr.message}; nothing was changed`);
      if (cidr.family !== family) throw invalid(`${field}: "${text}" is not an IPv${family} network; nothing was changed`);
      out.push(cidr.text);
    }
    return [...new Set(out)];
  };
  return { v4: canonical(networks.v4, 4, "dbAllowedCidrs"), v6: canonical(networks.v6, 6, "dbAllowedCidrsV6") };
}

/** A client's address as stored and compared: IPv4-mapped IPv6 written as IPv4. */
export function clientAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/** Whether a client address is inside the allowed networks (IPv4-mapped IPv6 counts as IPv4). */
export function networkFilter(networks: AllowedNetworks): (address: string) => boolean {
  const list = new BlockList();
  for (const cidr of networks.v4) {
    const [net, bits] = cidr.split("/");
    list.addSubnet(net!, Number(bits ?? 32), "ipv4");
  }
  for (const cidr of networks.v6) {
    const [net, bits] = cidr.split("/");
    list.addSubnet(net!, Number(bits ?? 128), "ipv6");
  }
  // A family's /0 network holds every address of it (the default: no restrictions), so most
  // requests skip the list, whose check builds an address object per call.
  const allV4 = networks.v4.some((cidr) => cidr.endsWith("/0"));
  const allV6 = networks.v6.some((cidr) => cidr.endsWith("/0"));
  return (address) => {
    const ip = clientAddress(address);
    if (isIPv4(ip)) return allV4 || list.check(ip, "ipv4");
    return isIPv6(ip) && (allV6 || list.check(ip, "ipv6"));
  };
}
