// Execute stage, compile: a prepared document + variables + API schema → the statements to run
// (one per root field that needs the database) and how to assemble their JSON texts into the
// response. Pure: the same shape serves PLV8 (sync SPI) and Node tests (async node-pg).

import { executeSync, Kind, TypeInfo, visit, visitWithTypeInfo, type DocumentNode, type FieldNode, type GraphQLSchema } from "graphql";
import type { Variables } from "../document/inputValue";
import type { PreparedDocument } from "../document/prepareDocument";
import { UserError } from "../document/UserError";
import { planOperation } from "../plan/planOperation";
import type { RootFieldPlan } from "../plan/types";
import type { ApiSchema } from "../schema/apiSchema";
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
  const schema = api.introspection;
  if (!schema) return { kind: "error", message: `Unknown field "${field.name.value}" on type Query` };
  const document: DocumentNode = {
    kind: Kind.DOCUMENT,
    definitions: [
      { ...doc.operation, operation: doc.operation.operation, selectionSet: { kind: Kind.SELECTION_SET, selections: [field] } },
      ...doc.fragments.values(),
    ],
  };
  const result = executeSync({ schema, document: typeNamesAsDescribed(schema, document), variableValues: variables as Record<string, unknown> });
  if (result.errors && result.errors.length > 0) return { kind: "error", message: result.errors[0]!.message };
  const key = field.alias?.value ?? field.name.value;
  return { kind: "ok", json: JSON.stringify((result.data as Record<string, unknown> | null | undefined)?.[key] ?? null) };
}

/**
 * pg_graphql answers `__typename` on a `__Type` object with the name of the type it describes;
 * asking for `name` under the same response key reproduces that.
 */
function typeNamesAsDescribed(schema: GraphQLSchema, document: DocumentNode): DocumentNode {
  const info = new TypeInfo(schema);
  return visit(
    document,
    visitWithTypeInfo(info, {
      Field(node: FieldNode) {
        if (node.name.value !== "__typename" || info.getParentType()?.name !== "__Type") return undefined;
        return {
          ...node,
          alias: { kind: Kind.NAME, value: node.alias?.value ?? "__typename" },
          name: { kind: Kind.NAME, value: "name" },
        };
      },
    }),
  );
}
