// Platform store: a project's secrets — set (insert or replace, all in one transaction), listed
// by name and digest, removed by name. Values are stored sealed; nothing here decrypts them.
import type { SqlPool } from "../platform/sql";
import { secretDigest, type SecretCipher } from "./secretCipher";
import { isoColumn } from "../platform/isoColumn";

export interface SecretSummary {
  name: string;
  digest: string;
  updated_at: string;
}

export class SecretStore {
  constructor(
    private readonly sql: SqlPool,
    private readonly cipher: SecretCipher | undefined,
  ) {}

  get enabled(): boolean {
    return this.cipher !== undefined;
  }

  async set(ref: string, secrets: { name: string; value: string }[]): Promise<void> {
    const cipher = this.cipher!;
    await this.sql.transaction(async (tx) => {
      for (const { name, value } of secrets) {
        const sealed = cipher.seal(value);
        await tx.rows(
          `insert into platform.project_secrets (project_ref, name, iv, ciphertext, auth_tag, digest) values ($1, $2, $3, $4, $5, $6)
           on conflict (project_ref, name) do update set iv = excluded.iv, ciphertext = excluded.ciphertext,
             auth_tag = excluded.auth_tag, digest = excluded.digest, updated_at = now()`,
          [ref, name, sealed.iv, sealed.ciphertext, sealed.authTag, secretDigest(value)],
        );
      }
    });
  }

  async list(ref: string): Promise<SecretSummary[]> {
    return this.sql.rows<SecretSummary>(
      `select name, digest, ${isoColumn("updated_at")}
       from platform.project_secrets where project_ref = $1 order by name`,
      [ref],
    );
  }

  /** Removes the named secrets; answers the names that were not there. */
  async remove(ref: string, names: string[]): Promise<string[]> {
    const gone = await this.sql.rows<{ name: string }>(
      "delete from platform.project_secrets where project_ref = $1 and name = any($2) returning name",
      [ref, names],
    );
    const removed = new Set(gone.map((r) => r.name));
    return names.filter((n) => !removed.has(n));
  }
}
