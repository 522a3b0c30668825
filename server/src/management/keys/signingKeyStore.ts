// Platform store: a project's signing keys, their private JWKs (never answered) and their states.
// At most one key per project is `in_use` (a unique index), and at most one is the legacy secret.
import type { JWK } from "jose";
import type { Sql } from "../platform/sql";
import { isoColumn } from "../platform/isoColumn";

export const signingAlgorithms = ["EdDSA", "ES256", "RS256", "HS256"] as const;
export type SigningAlgorithm = (typeof signingAlgorithms)[number];
export const signingKeyStatuses = ["in_use", "previously_used", "revoked", "standby"] as const;
export type SigningKeyStatus = (typeof signingKeyStatuses)[number];

export interface SigningKeyRecord {
  id: string;
  algorithm: SigningAlgorithm;
  status: SigningKeyStatus;
  legacy: boolean;
  private_jwk: JWK;
  public_jwk: JWK | null;
  created_at: string;
  updated_at: string;
}

const columns = `id::text as id, algorithm, status, legacy, private_jwk, public_jwk, ${isoColumn("created_at")}, ${isoColumn("updated_at")}`;

export class SigningKeyStore {
  constructor(private readonly sql: Sql) {}

  list(projectId: number): Promise<SigningKeyRecord[]> {
    return this.sql.rows<SigningKeyRecord>(`select ${columns} from platform.signing_keys where project_id = $1 order by created_at, id`, [projectId]);
  }

  get(projectId: number, id: string): Promise<SigningKeyRecord | undefined> {
    return this.sql.one<SigningKeyRecord>(`select ${columns} from platform.signing_keys where project_id = $1 and id = $2`, [projectId, id]);
  }

  legacy(projectId: number): Promise<SigningKeyRecord | undefined> {
    return this.sql.one<SigningKeyRecord>(`select ${columns} from platform.signing_keys where project_id = $1 and legacy`, [projectId]);
  }

  async exists(id: string): Promise<boolean> {
    return (await this.sql.one("select 1 from platform.signing_keys where id = $1", [id])) !== undefined;
  }

  async insert(projectId: number, key: Omit<SigningKeyRecord, "created_at" | "updated_at">): Promise<SigningKeyRecord> {
    return (await this.sql.one<SigningKeyRecord>(
      `insert into platform.signing_keys (id, project_id, algorithm, status, legacy, private_jwk, public_jwk)
       values ($1, $2, $3, $4, $5, $6, $7) returning ${columns}`,
      [key.id, projectId, key.algorithm, key.status, key.legacy, key.private_jwk, key.public_jwk],
    ))!;
  }

  /** The key in use moves to previously_used (before another is put in use). */
  async retireInUse(projectId: number): Promise<void> {
    await this.sql.rows(
      "update platform.signing_keys set status = 'previously_used', updated_at = now() where project_id = $1 and status = 'in_use'",
      [projectId],
    );
  }

  async setStatus(projectId: number, id: string, status: SigningKeyStatus): Promise<SigningKeyRecord> {
    return (await this.sql.one<SigningKeyRecord>(
      `update platform.signing_keys set status = $3, updated_at = now() where project_id = $1 and id = $2 returning ${columns}`,
      [projectId, id, status],
    ))!;
  }

  async remove(projectId: number, id: string): Promise<void> {
    await this.sql.rows("delete from platform.signing_keys where project_id = $1 and id = $2", [projectId, id]);
  }
}
