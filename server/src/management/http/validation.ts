// HTTP stage (Management API): route schemas → validators. Bodies are checked strictly (no type
// coercion, no extra properties dropped); path and query values arrive as text, so they are
// converted to the types their schemas name.
import Ajv, { type Options } from "ajv";
import addFormats from "ajv-formats";
import type { FastifySchemaCompiler } from "fastify";

const common: Options = { useDefaults: true, removeAdditional: false, allErrors: false, strict: false };

function compiler(options: Options) {
  return (schema: object) => {
    // Each schema gets its own instance: generated schemas may share an $id.
    const ajv = new Ajv({ ...common, ...options });
    addFormats(ajv);
    return ajv.compile(schema);
  };
}

const strict = compiler({ coerceTypes: false });
const textual = compiler({ coerceTypes: "array" });

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  httpPart === "body" ? strict(schema) : textual(schema);
