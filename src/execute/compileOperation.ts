// Execute stage, compile: a prepared document + variables + API schema → the statements to run
// (one per root field that needs the database) and how to assemble their JSON texts into the
// response. Pure: the same shape serves PLV8 (sync SPI) and Node tests (async node-pg).

import type { CollectContext } from "../document/collectFields";
import { VariableScope, type Variables } from "../document/inputValue";
import type { PreparedDocument } from "../document/prepareDocument";
import { UserError } from "../document/UserError";
import { planOperation } from "../plan/planOperation";
import { planShape } from "../plan/planShape";
import type { OperationPlan, RootFieldPlan } from "../plan/types";
import { param, pgType, type ParamNode, type ResultLink, type SqlType } from "../sql/ast";
import type { ApiSchema } from "../schema/apiSchema";
import { buildRootStatements } from "../transpile/buildRootSelect";
import { invariant, unreachable } from "../util/invariant";
import { resolveIntrospectionField } from "./introspection";
import { renderSql, type Statement } from "../sql/renderSql";
import { errorResponse } from "./response";

export interface CompiledOperation {
  /**
   * One entry per root field: the statements it runs, in order (none where the answer needs no
   * statement); the last one's result is the field's. A statement may read the results of the
   * statements before it of the same field (parameters with a `link`): boundStatements() binds them.
   */
  statements: Statement[][];
  /** Errors were found before any statement runs (the answer carries them). */
  failed: boolean;
  /** Response JSON text from each statement's `result` column (JSON text or null). */
  assemble(results: (string | null)[]): string;
}

/**
 * Where a cached statement's `$n` gets its value: a parameter of the new plan, a constant, or the
 * result of an earlier statement of the same field.
 */
type ParamSource =
  | { kind: "plan"; index: number }
  | { kind: "constant"; value: string | null }
  | { kind: "link"; link: ResultLink; type: SqlType };

export type CachedStatements = { sql: string; sources: ParamSource[]; types: string[] }[][];

/** Rendered statements by plan shape, for one query text. */
export interface SqlCache {
  get(shape: string): CachedStatements | undefined;
  set(shape: string, statements: CachedStatements): void;
}

export function compileOperation(
  api: ApiSchema,
  doc: PreparedDocument,
  variables: Variables,
  sqlCache: SqlCache | null = null,
  onCacheHit: () => void = () => {},
): CompiledOperation {
  let fields: RootFieldPlan[];
  let plan: OperationPlan;
  try {
    plan = planOperation(api, doc, variables);
    fields = plan.fields;
  } catch (e) {
    if (e instanceof UserError) return constantAnswer(errorResponse(e.message, e.omitData));
    throw e;
  }
  const statements = sqlCache ? cachedStatements(plan, sqlCache, onCacheHit) : renderAll(fields);
  // Introspection is answered up front: an error there fails the whole request.
  const fixed = new Map<number, string>();
  const ctx: CollectContext = { fragments: doc.fragments, scope: new VariableScope(doc.operation, variables) };
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (f.kind === "typename") fixed.set(i, JSON.stringify(f.value));
    else if (f.kind === "null") fixed.set(i, "null");
    else if (f.kind === "introspection") {
      const answer = introspect(api, f, ctx);
      if (answer.kind === "error") return constantAnswer(errorResponse(answer.message, false));
      fixed.set(i, answer.json);
    }
  }
  const errors = fields.flatMap((f) => (f.kind === "error" ? ['{"message": ' + JSON.stringify(f.message) + "}"] : []));
  const errorsText = errors.length > 0 ? ', "errors": [' + errors.join(", ") + "]" : "";
  return {
    statements,
    failed: errors.length > 0,
    assemble(results) {
      const parts: string[] = [];
      fields.forEach((f, i) => {
        if (f.kind === "error") return;
        const value = fixed.get(i) ?? results[i] ?? "null";
        parts.push(JSON.stringify(f.key) + ": " + value);
      });
      const data = parts.length === 0 && errors.length > 0 ? "null" : "{" + parts.join(", ") + "}";
      return '{"data": ' + data + errorsText + "}";
    },
  };
}

function renderAll(fields: RootFieldPlan[]): Statement[][] {
  return fields.map((f) => buildRootStatements(f).map(renderSql));
}

/**
 * The same query with other variable values usually plans to the same shape: its statements are
 * then taken from the cache and only re-bound, skipping SQL generation.
 */
function cachedStatements(plan: OperationPlan, cache: SqlCache, onHit: () => void): Statement[][] {
  const { shape, params } = planShape(plan);
  const cached = cache.get(shape);
  if (cached) {
    onHit();
    return cached.map((steps) =>
      steps.map((c) => {
        const nodes = c.sources.map((src): ParamNode => {
          switch (src.kind) {
            case "plan":
              return params[src.index]!;
            case "constant":
              return param(src.value, pgType("text"));
            case "link":
              return { ...param(null, src.type), link: src.link };
            default:
              return unreachable(src, "parameter source");
          }
        });
        return { sql: c.sql, params: nodes.map((n) => n.value), nodes, types: c.types };
      }),
    );
  }
  const statements = renderAll(plan.fields);
  const index = new Map<ParamNode, number>();
  params.forEach((p, i) => {
    if (!index.has(p)) index.set(p, i);
  });
  cache.set(
    shape,
    statements.map((steps) =>
      steps.map((s) => ({
        sql: s.sql,
        types: s.types,
        sources: s.nodes.map((n): ParamSource => {
          if (n.link !== undefined) return { kind: "link", link: n.link, type: n.type };
          const i = index.get(n);
          return i === undefined ? { kind: "constant", value: n.value } : { kind: "plan", index: i };
        }),
      })),
    ),
  );
  return statements;
}

/** A statement ready to run: its text, every parameter's value, and the type each is bound as. */
export interface BoundStatement {
  sql: string;
  params: (string | null)[];
  /** The type each parameter is bound as: a function of the statement's text alone. */
  types: string[];
}

/**
 * The statements of a compiled request in the order they run, each with its parameters bound,
 * those linked to an earlier statement's result included: the caller runs each statement it is
 * handed and passes its `result` back to next(). Returns the root fields' results for assemble().
 */
export function* boundStatements(compiled: CompiledOperation): Generator<BoundStatement, (string | null)[], string | null> {
  const results: (string | null)[] = [];
  for (const steps of compiled.statements) {
    const done: (string | null)[] = [];
    // Parsed only by a field whose statements read values out of an earlier one's result.
    let handedBack: (string | null)[][][] | undefined;
    for (const s of steps) {
      const hasLinks = s.nodes.some((n) => n.link !== undefined);
      const params = hasLinks ? s.nodes.map((n, i) => (n.link === undefined ? s.params[i]! : linkedValue(n.link, done, (handedBack ??= [])))) : s.params;
      done.push(yield { sql: s.sql, params, types: s.types });
    }
    results.push(done.length === 0 ? null : done[done.length - 1]!);
  }
  return results;
}

/** A linked parameter's value: an earlier statement's whole result, or one value of its rows (parsed once, into `parsed`). */
function linkedValue(link: ResultLink, done: (string | null)[], parsed: (string | null)[][][]): string | null {
  switch (link.kind) {
    case "result":
      return done[link.step]!;
    case "value": {
      parsed[link.step] ??= handedBackRows(done[link.step]!);
      const row = parsed[link.step]![link.row];
      invariant(row !== undefined && link.column < row.length, "a linked value names a row and column its statement handed back");
      return row[link.column]!;
    }
    default:
      return unreachable(link, "result link");
  }
}

/** The rows an insert handed back: its result, a JSON list of rows, each a list of text values or nulls. */
function handedBackRows(result: string | null): (string | null)[][] {
  invariant(result !== null, "a statement whose values are linked hands back a result");
  const rows: unknown = JSON.parse(result);
  invariant(Array.isArray(rows), "a linked result is a JSON list");
  return rows as (string | null)[][];
}

/** A request answered without the database (an error found before any statement runs). */
export function constantAnswer(response: string): CompiledOperation {
  return { statements: [], failed: true, assemble: () => response };
}

type IntrospectionAnswer = { kind: "ok"; json: string } | { kind: "error"; message: string };

function introspect(api: ApiSchema, field: Extract<RootFieldPlan, { kind: "introspection" }>, ctx: CollectContext): IntrospectionAnswer {
  try {
    return { kind: "ok", json: JSON.stringify(resolveIntrospectionField(api, field.field, ctx)) };
  } catch (e) {
    if (e instanceof UserError) return { kind: "error", message: e.message };
    throw e;
  }
}
