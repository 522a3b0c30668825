// Execute stage, the API schemas of one backend: role + search path + schema version → the whole
// API (reflected and built once), or, in a large catalog, the API of the relations a request names
// (reflected and built for those alone), so that a new connection or a schema change does not pay
// for hundreds of tables a request never touches.

import { DIRECTORY_QUERY, parseDirectory, type CatalogDirectory } from "../catalog/directory";
import { parseCatalog } from "../catalog/parseCatalog";
import { NARROWED_REFLECTION_QUERY, REFLECTION_QUERY } from "../catalog/reflectionQuery";
import type { ApiSchema } from "../schema/apiSchema";
import { buildPartialSchema, buildSchema } from "../schema/buildSchema";
import { tablesNamedBy } from "../schema/namedTables";
import { LruMap } from "../util/LruMap";
import type { PreparedStatement, SyncDatabase } from "./Resolver";

// The sequence is read directly: graphql.get_schema_version() is security definer with its own
// search_path, which costs a settings switch and a fresh plan of its body on every call. It is
// named in the query: an upgrade (drop and create in one transaction) holds it locked, and the
// statement waits and then finds the new one, with this function already running. Read by the
// calling statement instead, the wait would come before the call, and the call would then find
// its function dropped.
const SCHEMA_KEY_QUERY =
  "select current_user::text as role, pg_catalog.current_setting('search_path') as path, (select last_value from graphql.seq_schema_version)::text as version";
const SCHEMA_VERSION_QUERY = "select last_value::text as version from graphql.seq_schema_version";

/** The parts of a schema key (role, search path, schema version) as one text. */
function schemaKeyOf(role: unknown, path: unknown, version: unknown): string {
  return String(role) + "\u0000" + String(path) + "\u0000" + String(version);
}

/** The caller's role and search path, as graphql._resolve_text passes them. */
export interface ClaimedRole {
  role: string;
  path: string;
}

const SCHEMA_CACHE_SIZE = 8;
const PARTIALS_PER_SCHEMA = 16;

/**
 * Up to this many relations the whole API is reflected at once: it costs a few milliseconds, and
 * every later request of the backend finds it ready.
 */
export const NARROWING_THRESHOLD = 100;

export interface SchemaFigures {
  /** Whole reflections run. */
  schemaLoads: number;
  /** Reflections narrowed to the relations a request names. */
  partialSchemaLoads: number;
  /** Time of the last reflection's query (ms, the json converted included) and of building its API. */
  lastReflectionMs: number;
  lastBuildMs: number;
  /** Time of the last directory query (its json converted and parsed) and of choosing a request's relations from it. */
  lastDirectoryMs: number;
  lastNarrowingMs: number;
}

interface SchemaEntry {
  full: ApiSchema | null;
  /** Read on the first request; null for a small catalog or one whose directives cannot be read. */
  directory: CatalogDirectory | null | undefined;
  partial: LruMap<string, ApiSchema>;
}

export class SchemaSource {
  private readonly entries = new LruMap<string, SchemaEntry>(SCHEMA_CACHE_SIZE);
  /** Asked on every request: a kept plan spares parsing and planning it each time. */
  private keyPlan: PreparedStatement | null = null;
  private versionPlan: PreparedStatement | null = null;

  constructor(
    private readonly db: SyncDatabase,
    readonly figures: SchemaFigures,
  ) {}

  /**
   * Asked on every request; the key of the schemas below. `claimed`: the role and search path the
   * caller read (graphql._resolve_text's arguments), so that only the version is read here. They
   * are taken only when, with that version, they name a schema built here under a key this
   * source read whole itself: anyone may call the plv8 function with any arguments. The resolver
   * lives in the JavaScript context of the role running it (PLV8 keeps one per role), where every
   * key read whole names that role, so a claim of another role is never taken. A false search
   * path can at most get the caller an API this role had under another path: its statements name
   * their schemas and run with the caller's own privileges.
   */
  key(claimed: ClaimedRole | null = null): string {
    if (claimed !== null) {
      this.versionPlan ??= this.db.prepare(SCHEMA_VERSION_QUERY, []);
      const key = schemaKeyOf(claimed.role, claimed.path, this.db.execute(this.versionPlan, [])[0]!["version"]);
      if (this.entries.has(key)) return key;
    }
    this.keyPlan ??= this.db.prepare(SCHEMA_KEY_QUERY, []);
    const row = this.db.execute(this.keyPlan, [])[0]!;
    return schemaKeyOf(row["role"], row["path"], row["version"]);
  }

  /** The whole API. */
  full(key: string): ApiSchema {
    const entry = this.entry(key);
    if (entry.full === null) {
      this.figures.schemaLoads++;
      entry.full = this.load(REFLECTION_QUERY, [], buildSchema);
      entry.partial = new LruMap(0);
    }
    return entry.full;
  }

  /**
   * The API of the relations `names` may refer to, or null where the whole one is to be used: a
   * small catalog, a directory that cannot be read, or the whole API already built.
   */
  narrowed(key: string, names: () => ReadonlySet<string>): ApiSchema | null {
    const entry = this.entry(key);
    if (entry.full !== null) return null;
    if (entry.directory === undefined) {
      const t0 = Date.now();
      const directory = parseDirectory(this.run(DIRECTORY_QUERY, [])!["directory"]);
      entry.directory = directory !== null && directory.tables.length > NARROWING_THRESHOLD ? directory : null;
      this.figures.lastDirectoryMs = Date.now() - t0;
    }
    if (entry.directory === null) return null;
    const t1 = Date.now();
    const oids = tablesNamedBy(entry.directory, names());
    this.figures.lastNarrowingMs = Date.now() - t1;
    if (oids === null) return null;
    const setKey = "{" + oids.join(",") + "}";
    let api = entry.partial.get(setKey);
    if (api === undefined) {
      this.figures.partialSchemaLoads++;
      api = this.load(NARROWED_REFLECTION_QUERY, [setKey], buildPartialSchema);
      entry.partial.set(setKey, api);
    }
    // A directive that cannot be read is reported as the whole catalog reports it.
    return api.loadError === null ? api : null;
  }

  private entry(key: string): SchemaEntry {
    let entry = this.entries.get(key);
    if (entry === undefined) {
      entry = { full: null, directory: undefined, partial: new LruMap(PARTIALS_PER_SCHEMA) };
      this.entries.set(key, entry);
    }
    return entry;
  }

  private load(sql: string, params: string[], build: typeof buildSchema): ApiSchema {
    const t0 = Date.now();
    // Planned and run without JIT: graphql._internal_resolve runs with `jit = off`.
    const catalog = this.run(sql, params)!["catalog"];
    const t1 = Date.now();
    const api = build(parseCatalog(catalog));
    this.figures.lastReflectionMs = t1 - t0;
    this.figures.lastBuildMs = Date.now() - t1;
    return api;
  }

  /**
   * The catalog queries run once per schema version: their plans (1.5 MB of the backend's memory
   * for the two) are freed at once rather than kept for the next DDL change, where planning them
   * again costs a few milliseconds.
   */
  private run(sql: string, params: string[]): Record<string, unknown> | undefined {
    const plan = this.db.prepare(sql, params.map(() => "text"));
    try {
      return this.db.execute(plan, params)[0];
    } finally {
      plan.free();
    }
  }
}
