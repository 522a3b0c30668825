// Project stage: a project's owner role → the default privileges hosted projects have: what the
// owner makes in `public` is granted to the API roles. Run on the owner's own login.
import format from "pg-format";

export function ownerDefaultPrivileges(owner: string): string {
  return ["tables", "routines", "sequences"]
    .map((kind) => format(`alter default privileges for role %I in schema public grant all on ${kind} to anon, authenticated, service_role`, owner))
    .join(";\n");
}
