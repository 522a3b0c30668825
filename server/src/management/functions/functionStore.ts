// Platform store: a project's functions — their metadata and their bundles (files or an eszip),
// stored byte for byte; a new bundle bumps the version, metadata edits do not.
import { sqlState, type Sql, type SqlPool } from "../platform/sql";
import type { Bundle, BundleFile } from "./bundle";

export interface FunctionRecord {
  id: string;
  slug: string;
  name: string;
  status: "ACTIVE" | "REMOVED" | "THROTTLED";
  version: number;
  verify_jwt: boolean;
  import_map: boolean;
  entrypoint_path: string;
  import_map_path: string | null;
  static_patterns: string[];
  bundle_kind: Bundle["kind"];
  ezbr_sha256: string;
  created_at: number;
  updated_at: number;
}

export interface FunctionFields {
  name: string;
  verify_jwt: boolean;
  import_map: boolean;
  entrypoint_path: string;
  import_map_path: string | null;
  static_patterns: string[];
}

export type FunctionEdit = Partial<Pick<FunctionRecord, "slug" | "name" | "status" | "verify_jwt" | "import_map" | "entrypoint_path" | "import_map_path" | "ezbr_sha256">>;

const columns = `id::text, slug, name, status, version, verify_jwt, import_map, entrypoint_path, import_map_path, static_patterns,
  bundle_kind, ezbr_sha256, (extract(epoch from created_at) * 1000)::bigint::float8 as created_at,
  (extract(epoch from updated_at) * 1000)::bigint::float8 as updated_at`;

async function storeBundle(tx: Sql, id: string, bundle: Bundle): Promise<void> {
  await tx.rows("delete from platform.function_files where function_id = $1", [id]);
  const files: BundleFile[] = bundle.kind === "eszip" ? [{ path: "", content: bundle.content }] : bundle.files;
  for (const file of files) {
    await tx.rows("insert into platform.function_files (function_id, path, content) values ($1, $2, $3)", [id, file.path, file.content]);
  }
}

class UnknownFunction extends Error {
  constructor(readonly slug: string) {
    super(`no function ${slug}`);
  }
}

export class FunctionStore {
  constructor(private readonly sql: SqlPool) {}

  async list(ref: string): Promise<FunctionRecord[]> {
    return this.sql.rows<FunctionRecord>(`select ${columns} from platform.functions where project_ref = $1 order by slug`, [ref]);
  }

  async get(ref: string, slug: string): Promise<FunctionRecord | undefined> {
    return this.sql.one<FunctionRecord>(`select ${columns} from platform.functions where project_ref = $1 and slug = $2`, [ref, slug]);
  }

  /** Creates the function, or gives the existing one this bundle and fields with the next version. */
  async deploy(ref: string, slug: string, fields: FunctionFields, bundle: Bundle, sha256: string, options: { mustBeNew: boolean }): Promise<FunctionRecord | undefined> {
    return this.sql.transaction(async (tx) => {
      const conflict = options.mustBeNew ? "do nothing" : `do update set name = excluded.name, verify_jwt = excluded.verify_jwt,
        import_map = excluded.import_map, entrypoint_path = excluded.entrypoint_path, import_map_path = excluded.import_map_path,
        static_patterns = excluded.static_patterns, bundle_kind = excluded.bundle_kind, ezbr_sha256 = excluded.ezbr_sha256,
        status = 'ACTIVE', version = f.version + 1, updated_at = now()`;
      const row = await tx.one<FunctionRecord>(
        `insert into platform.functions as f (project_ref, slug, name, verify_jwt, import_map, entrypoint_path, import_map_path,
           static_patterns, bundle_kind, ezbr_sha256)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) on conflict (project_ref, slug) ${conflict} returning ${columns}`,
        [ref, slug, fields.name, fields.verify_jwt, fields.import_map, fields.entrypoint_path, fields.import_map_path, fields.static_patterns, bundle.kind, sha256],
      );
      if (row) await storeBundle(tx, row.id, bundle);
      return row;
    });
  }

  /** Edits fields of existing functions (by slug) in one transaction; a new bundle bumps the version. */
  async edit(ref: string, edits: { slug: string; fields: FunctionEdit; bundle?: { bundle: Bundle; sha256: string } }[]): Promise<FunctionRecord[] | { unknown: string } | { taken: true }> {
    return this.sql.transaction(async (tx) => {
      const out: FunctionRecord[] = [];
      for (const edit of edits) {
        const f = edit.fields;
        const row = await tx.one<FunctionRecord>(
          `update platform.functions set slug = coalesce($3, slug), name = coalesce($4, name), status = coalesce($5, status),
             verify_jwt = coalesce($6, verify_jwt), import_map = coalesce($7, import_map), entrypoint_path = coalesce($8, entrypoint_path),
             import_map_path = coalesce($9, import_map_path), ezbr_sha256 = coalesce($10, ezbr_sha256),
             bundle_kind = coalesce($11, bundle_kind), version = version + $12, updated_at = now()
           where project_ref = $1 and slug = $2 returning ${columns}`,
          [ref, edit.slug, f.slug ?? null, f.name ?? null, f.status ?? null, f.verify_jwt ?? null, f.import_map ?? null, f.entrypoint_path ?? null,
            f.import_map_path ?? null, edit.bundle?.sha256 ?? f.ezbr_sha256 ?? null, edit.bundle?.bundle.kind ?? null, edit.bundle ? 1 : 0],
        );
        if (!row) throw new UnknownFunction(edit.slug);
        if (edit.bundle) await storeBundle(tx, row.id, edit.bundle.bundle);
        out.push(row);
      }
      return out;
    }).catch((e: unknown) => {
      // Rolled back: no edit of the batch is kept.
      if (e instanceof UnknownFunction) return { unknown: e.slug };
      if (sqlState(e) === "23505") return { taken: true as const };
      throw e;
    });
  }

  async files(id: string): Promise<BundleFile[]> {
    return this.sql.rows<BundleFile>("select path, content from platform.function_files where function_id = $1 order by path", [id]);
  }

  async remove(ref: string, slug: string): Promise<boolean> {
    return (await this.sql.rows("delete from platform.functions where project_ref = $1 and slug = $2 returning id", [ref, slug])).length > 0;
  }
}
