// Settings stage: failed authentications at a project's data API → bans of the client address.
// `maxFailures` refusals within `windowMs` ban the address for `banMs` (or until unbanned). The
// platform table is the record every process shares; each process answers from its own copy,
// refreshed on its own changes, when another process announces one, and by the sweep.
import type { Sql } from "../platform/sql";

export const maxFailures = 10;
const windowMs = 10 * 60 * 1000;
const banMs = 30 * 60 * 1000;

export class NetworkBans {
  /** ref → address → banned until (ms). */
  private readonly active = new Map<string, Map<string, number>>();

  constructor(
    private readonly platform: Sql,
    private readonly now: () => number,
    /** 0 turns banning off. */
    private readonly banAfter = maxFailures,
    /** Tells the other server processes that the project's bans changed. */
    private readonly announce: (ref: string) => Promise<void> = async () => {},
  ) {}

  isBanned(ref: string, address: string): boolean {
    return this.bannedUntil(ref, address) !== undefined;
  }

  /** When the address's ban ends (ms), or undefined when it is not banned. */
  bannedUntil(ref: string, address: string): number | undefined {
    const until = this.active.get(ref)?.get(address);
    return until !== undefined && this.now() < until ? until : undefined;
  }

  /** Failed authentications within ten minutes that ban an address (0: never). */
  get failuresToBan(): number {
    return this.banAfter;
  }

  async recordFailure(ref: string, address: string): Promise<void> {
    if (this.banAfter === 0) return;
    const at = new Date(this.now());
    const row = await this.platform.one<{ until: number | null }>(
      `insert into platform.network_bans as b (ref, address, failures, window_start) values ($1, $2, 1, $3)
       on conflict (ref, address) do update set
         failures = case when b.window_start < $3::timestamptz - make_interval(secs => $4::float8 / 1000) then 1 else b.failures + 1 end,
         window_start = case when b.window_start < $3::timestamptz - make_interval(secs => $4::float8 / 1000) then $3 else b.window_start end
       returning (extract(epoch from b.banned_until) * 1000)::float8 as until`,
      [ref, address, at, windowMs],
    );
    const banned = await this.platform.one<{ until: number }>(
      `update platform.network_bans set banned_until = $3::timestamptz + make_interval(secs => $4::float8 / 1000), failures = 0, window_start = $3
        where ref = $1 and address = $2 and failures >= $5 returning (extract(epoch from banned_until) * 1000)::float8 as until`,
      [ref, address, at, banMs, this.banAfter],
    );
    const until = banned?.until ?? row?.until ?? null;
    if (until !== null) this.remember(ref, address, until);
    if (banned) await this.announce(ref);
  }

  /** The addresses banned now. */
  async list(ref: string): Promise<string[]> {
    const rows = await this.platform.rows<{ address: string; until: number }>(
      "select host(address) as address, (extract(epoch from banned_until) * 1000)::float8 as until from platform.network_bans where ref = $1 and banned_until > $2 order by address",
      [ref, new Date(this.now())],
    );
    for (const r of rows) this.remember(ref, r.address, r.until);
    return rows.map((r) => r.address);
  }

  async unban(ref: string, addresses: string[]): Promise<void> {
    await this.platform.rows("delete from platform.network_bans where ref = $1 and host(address) = any($2)", [ref, addresses]);
    for (const a of addresses) this.active.get(ref)?.delete(a);
    await this.announce(ref);
  }

  /** Reloads every active ban (other processes' ones included). */
  async refresh(): Promise<void> {
    const rows = await this.platform.rows<{ ref: string; address: string; until: number }>(
      "select ref, host(address) as address, (extract(epoch from banned_until) * 1000)::float8 as until from platform.network_bans where banned_until > $1",
      [new Date(this.now())],
    );
    this.active.clear();
    for (const r of rows) this.remember(r.ref, r.address, r.until);
  }

  private remember(ref: string, address: string, until: number): void {
    let byAddress = this.active.get(ref);
    if (!byAddress) this.active.set(ref, (byAddress = new Map()));
    byAddress.set(address, until);
  }
}
