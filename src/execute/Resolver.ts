// Execute stage: a request (query, variables, operationName) → response JSON text, over a
// synchronous database connection. Holds the per-backend caches: API schemas (SchemaSource),
// compiled operations by query text and API, prepared plans by statement text.

import type { Variables } from "../document/inputValue";
import { prepareDocument, type DocumentError, type PreparedDocument } from "../document/prepareDocument";
import { documentNames } from "../document/documentNames";
import { parseCatalog } from "../catalog/parseCatalog";
import type { ApiSchema } from "../schema/apiSchema";
import { buildSchema } from "../schema/buildSchema";
import { SchemaSource, type ClaimedRole, type SchemaFigures } from "./SchemaSource";
import { boundStatements, compileOperation, constantAnswer, type CachedStatements, type CompiledOperation } from "./compileOperation";
import { parseJsonExact } from "../util/parseJsonExact";
import { LruMap } from "../util/LruMap";
import { errorResponse, variablesError } from "./response";

/** What the resolver needs from the database: prepared statements over PLV8's SPI. */
export interface SyncDatabase {
  /** Runs a statement through a prepared plan kept by the caller's cache. */
  execute(plan: PreparedStatement, params: (string | null)[]): Record<string, unknown>[];
  /** `types`: the type each parameter is bound as (a type name PostgreSQL parses). */
  prepare(sql: string, types: readonly string[]): PreparedStatement;
  /** Runs `work` in a subtransaction: an error it throws undoes every statement it ran. */
  atomically<T>(work: () => T): T;
}

export interface PreparedStatement {
  free(): void;
}

export interface ResolverStats extends SchemaFigures {
  operationCacheHits: number;
  operationCacheMisses: number;
  /** Same query text and same variable values: the statements are reused as they are. */
  compiledCacheHits: number;
  /** Same query text, other variable values, same plan shape: SQL generation skipped. */
  sqlCacheHits: number;
  preparedPlanHits: number;
  preparedPlanMisses: number;
}

interface OperationEntry {
  document: PreparedDocument | DocumentError;
  names: Set<string> | null;
  /** The API of the relations the document names (large catalogs); null: the whole API; undefined: not asked yet. */
  narrowed: ApiSchema | null | undefined;
  /** Per API the operation was compiled against (the whole one, or one narrowed to a few relations). */
  compiled: WeakMap<ApiSchema, Compiled>;
}

interface Compiled {
  /** Compiled statements by the variables' JSON text. */
  byVariables: LruMap<string, CompiledOperation>;
  /** Rendered statements by plan shape. */
  sql: LruMap<string, CachedStatements>;
}

const OPERATION_CACHE_SIZE = 256;
const COMPILED_PER_OPERATION = 16;
const SHAPES_PER_OPERATION = 8;
const PLAN_CACHE_SIZE = 256;

export class Resolver {
  private readonly schemas: SchemaSource;
  private readonly operations = new LruMap<string, OperationEntry>(OPERATION_CACHE_SIZE);
  private readonly plans: LruMap<string, PreparedStatement>;
  readonly stats: ResolverStats = {
    schemaLoads: 0,
    partialSchemaLoads: 0,
    lastReflectionMs: 0,
    lastBuildMs: 0,
    lastDirectoryMs: 0,
    lastNarrowingMs: 0,
    operationCacheHits: 0,
    operationCacheMisses: 0,
    compiledCacheHits: 0,
    sqlCacheHits: 0,
    preparedPlanHits: 0,
    preparedPlanMisses: 0,
  };

  constructor(private readonly db: SyncDatabase) {
    this.plans = new LruMap(PLAN_CACHE_SIZE, (p) => p.free());
    this.schemas = new SchemaSource(db, this.stats);
  }

  // The steps of a request, in order: the API from the reflected catalog (apiOf), the
  // statements to run and how to assemble their results (compile), running them (run). resolve()
  // takes them with the caches; a caller running the statements itself (node-pg) takes them alone.

  /** The API schema of a reflected catalog (the reflection query's `catalog` column). */
  static apiOf(catalog: unknown): ApiSchema {
    return buildSchema(parseCatalog(catalog));
  }

  /**
   * The statements a request needs and how to assemble the response, or its error answer.
   * `variablesJson` is the variables' JSON text, parsed exactly so that no integer loses digits.
   */
  static compile(api: ApiSchema, query: string, variablesJson: string | null, operationName: string | null): CompiledOperation {
    return compileRequest(
      variablesJson,
      () => api,
      () => prepareDocument(query, operationName),
      (_, doc, vars) => compileOperation(api, doc, vars),
    );
  }

  /**
   * `variablesJson` is the variables' JSON text (jsonb's rendering of them); it keys the compiled
   * cache. `claimed`: the role and search path the caller read (see SchemaSource.key).
   */
  resolve(query: string, variablesJson: string | null, operationName: string | null, claimed: ClaimedRole | null = null): string {
    const schemaKey = this.schemas.key(claimed);
    const entry = this.operation(schemaKey, query, operationName);
    const varsKey = variablesJson ?? "{}";
    // The same variables text compiled before against this API was read and checked then.
    const compile = (api: ApiSchema) =>
      this.compiledHit(entry, api, varsKey) ??
      compileRequest(
        variablesJson,
        () => api,
        () => entry.document,
        (_, doc, vars) => this.compiledFor(entry, api, doc, vars, varsKey),
      );
    // In a large catalog the API of the relations the request names answers it, unless the
    // request fails there (a name those relations do not provide, `node`, introspection): the
    // whole API then answers, errors included, as it would have from the start.
    const doc = entry.document;
    if (entry.narrowed === undefined) {
      entry.narrowed = doc.kind === "ok" ? this.schemas.narrowed(schemaKey, () => (entry.names ??= documentNames(doc))) : null;
    }
    const first = entry.narrowed === null ? null : compile(entry.narrowed);
    return this.run(first !== null && !first.failed ? first : compile(this.schemas.full(schemaKey)));
  }

  /** Runs a compiled request's statements and assembles the response. */
  run(compiled: CompiledOperation): string {
    const runAll = () => {
      const statements = boundStatements(compiled);
      for (let next = statements.next(); ; ) {
        if (next.done) return next.value;
        const s = next.value;
        const value = this.db.execute(this.plan(s.sql, s.types), s.params)[0]?.["result"];
        next = statements.next(value === null || value === undefined ? null : String(value));
      }
    };
    // A request answers whole or not at all: when a later statement fails, the earlier ones'
    // writes (mutations, or volatile functions a query calls) are undone with it.
    const count = compiled.statements.reduce((n, s) => n + s.length, 0);
    return compiled.assemble(count > 1 ? this.db.atomically(runAll) : runAll());
  }

  private operation(schemaKey: string, query: string, operationName: string | null): OperationEntry {
    const opKey = schemaKey + "\u0000" + (operationName ?? "") + "\u0000" + query;
    let entry = this.operations.get(opKey);
    if (entry) this.stats.operationCacheHits++;
    else {
      this.stats.operationCacheMisses++;
      entry = { document: prepareDocument(query, operationName), names: null, narrowed: undefined, compiled: new WeakMap() };
      this.operations.set(opKey, entry);
    }
    return entry;
  }

  private compiledHit(entry: OperationEntry, api: ApiSchema, varsKey: string): CompiledOperation | undefined {
    const compiled = entry.compiled.get(api)?.byVariables.get(varsKey);
    if (compiled) this.stats.compiledCacheHits++;
    return compiled;
  }

  /** Compiles for variables not seen with this API before (compiledHit missed). */
  private compiledFor(entry: OperationEntry, api: ApiSchema, doc: PreparedDocument, vars: Variables, varsKey: string): CompiledOperation {
    let caches = entry.compiled.get(api);
    if (caches === undefined) {
      caches = { byVariables: new LruMap(COMPILED_PER_OPERATION), sql: new LruMap(SHAPES_PER_OPERATION) };
      entry.compiled.set(api, caches);
    }
    const compiled = compileOperation(api, doc, vars, caches.sql, () => this.stats.sqlCacheHits++);
    caches.byVariables.set(varsKey, compiled);
    return compiled;
  }

  private plan(sql: string, types: readonly string[]): PreparedStatement {
    const cached = this.plans.get(sql);
    if (cached) {
      this.stats.preparedPlanHits++;
      return cached;
    }
    this.stats.preparedPlanMisses++;
    const plan = this.db.prepare(sql, types);
    this.plans.set(sql, plan);
    return plan;
  }

}

/**
 * A request compiled step by step: its variables (a JSON object or absent), the API (which may
 * have failed to load), the document, then the operation; the first failing step answers.
 */
function compileRequest(
  variablesJson: string | null,
  api: () => ApiSchema,
  document: () => PreparedDocument | DocumentError,
  compile: (api: ApiSchema, doc: PreparedDocument, variables: Variables) => CompiledOperation,
): CompiledOperation {
  const variables = variablesJson === null ? null : parseJsonExact(variablesJson);
  const badVariables = variablesError(variables);
  if (badVariables) return constantAnswer(badVariables);
  const schema = api();
  if (schema.loadError) return constantAnswer(errorResponse(schema.loadError, true));
  const doc = document();
  if (doc.kind === "error") return constantAnswer(errorResponse(doc.message, true));
  return compile(schema, doc, (variables ?? {}) as Variables);
}
