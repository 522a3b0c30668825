// HTTP stage (Management API): route schemas → validators. Bodies are checked strictly (no type
// coercion, no extra properties dropped); path and query values arrive as text, so they are
// converted to the types their schemas name.
import Ajv, { type Options, type ValidateFunction } from "ajv";
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

/** Compiles a route's schema on the route's first request. The document has hundreds of
 * schemas; compiling them all made start-up take seconds (tens of seconds on a busy machine),
 * while a server answers few of them. Fastify reads `errors` off the function it was given. */
function lazily(compile: (schema: object) => ValidateFunction) {
  return (schema: object) => {
    let compiled: ValidateFunction | undefined;
    const validate = (data: unknown): boolean => {
      compiled ??= compile(schema);
      const valid = compiled(data) as boolean;
      validate.errors = compiled.errors;
      return valid;
    };
    validate.errors = null as ValidateFunction["errors"];
    return validate;
  };
}

const strict = lazily(compiler({ coerceTypes: false }));
const textual = lazily(compiler({ coerceTypes: "array" }));

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  httpPart === "body" ? strict(schema) : textual(schema);
