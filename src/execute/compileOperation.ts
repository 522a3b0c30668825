// Execute stage, compile: a prepared document + variables + API schema → the statements to run
// (one per root field that needs the database) and how to assemble their JSON texts into the
// response. Pure: the same shape serves PLV8 (sync SPI) and Node tests (async node-pg).

import type { FieldNode } from "graphql";
import type { Variables } from "../document/inputValue";
import type { PreparedDocument } from "../document/prepareDocument";
import { UserError } from "../document/UserError";
import { planOperation } from "../plan/planOperation";
import type { RootFieldPlan } from "../plan/types";
import type { ApiSchema } from "../schema/apiSchema";
import { introspectionEnabled, resolveIntrospectionField } from "../schema/introspection";
import { buildRootSelect } from "../sql/buildQuery";
import { renderSql, type Statement } from "../sql/render";
import { errorResponse } from "./response";

export interface CompiledOperation {
  /** One entry per root field; null where the answer needs no statement. */
  statements: (Statement | null)[];
  /** Response JSON text from each statement's `result` column (JSON text or null). */
  assemble(results: (string | null)[]): string;
}

export function compileOperation(api: ApiSchema, doc: PreparedDocument, variables: Variables): CompiledOperation {
  let fields: RootFieldPlan[];
  try {
    fields = planOperation(api, doc, variables).fields;
  } catch (e) {
    if (e instanceof UserError) return constant(errorResponse(e.message, e.omitData));
    throw e;
  }
  const statements = fields.map((f) => {
    const s = buildRootSelect(f);
    return s ? renderSql(s) : null;
  });
  // Introspection is answered up front: an error there fails the whole request.
  const fixed = new Map<number, string>();
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (f.kind === "typename") fixed.set(i, JSON.stringify(f.value));
    else if (f.kind === "null") fixed.set(i, "null");
    else if (f.kind === "introspection") {
      const answer = introspect(api, doc, f.field, variables);
      if (answer.kind === "error") return constant(errorResponse(answer.message, false));
      fixed.set(i, answer.json);
    }
  }
  return {
    statements,
    assemble(results) {
      const parts = fields.map((f, i) => {
        const value = fixed.get(i) ?? results[i] ?? "null";
        return JSON.stringify(f.key) + ": " + value;
      });
      return '{"data": {' + parts.join(", ") + "}}";
    },
  };
}

function constant(response: string): CompiledOperation {
  return { statements: [], assemble: () => response };
}

type IntrospectionAnswer = { kind: "ok"; json: string } | { kind: "error"; message: string };

function introspect(api: ApiSchema, doc: PreparedDocument, field: FieldNode, variables: Variables): IntrospectionAnswer {
  if (!introspectionEnabled(api)) return { kind: "error", message: `Unknown field "${field.name.value}" on type Query` };
  try {
    const answer = resolveIntrospectionField(api, field, {
      variables,
      fragments: Object.fromEntries(doc.fragments),
    });
    return { kind: "ok", json: JSON.stringify(answer) };
  } catch (e) {
    if (e instanceof UserError) return { kind: "error", message: e.message };
    throw e;
  }
}
