// Platform store: per-project SSL enforcement and pgsodium root key (defaults when no row).
import { randomBytes } from "node:crypto";
import type { Sql } from "../platform/sql";

export class DatabaseOptions {
  constructor(private readonly sql: Sql) {}

  async sslEnforced(ref: string): Promise<boolean> {
    return (await this.sql.one<{ on: boolean }>("select ssl_enforced as on from platform.project_database_options where ref = $1", [ref]))?.on ?? false;
  }

  async setSslEnforced(ref: string, on: boolean): Promise<void> {
    await this.sql.rows(
      `insert into platform.project_database_options (ref, ssl_enforced) values ($1, $2)
       on conflict (ref) do update set ssl_enforced = excluded.ssl_enforced`,
      [ref, on],
    );
  }

  /** The stored root key; a random one is made and kept on first use. */
  async rootKey(ref: string): Promise<string> {
    const row = await this.sql.one<{ key: string }>(
      `insert into platform.project_database_options as o (ref, pgsodium_root_key) values ($1, $2)
       on conflict (ref) do update set pgsodium_root_key = coalesce(o.pgsodium_root_key, excluded.pgsodium_root_key)
       returning pgsodium_root_key as key`,
      [ref, randomBytes(32).toString("hex")],
    );
    return row!.key;
  }

  async setRootKey(ref: string, key: string): Promise<void> {
    await this.sql.rows(
      `insert into platform.project_database_options (ref, pgsodium_root_key) values ($1, $2)
       on conflict (ref) do update set pgsodium_root_key = excluded.pgsodium_root_key`,
      [ref, key],
    );
  }
}
