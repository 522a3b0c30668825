// Test support (hostile tenant): the interfaces this suite assumes the platform has once tenants
// are isolated, kept in one place so they can follow the implementation.

/** Attributes a role made by an operation may have: the platform's read-only login reads every
 * table of its project (BYPASSRLS); no role it makes is a superuser or may create roles,
 * databases or replicate. */
export function newRoleMayHave(role: string, attribute: string): boolean {
  return attribute === "bypassrls" && /_readonly$/.test(role);
}

/** max_connections of the server in the connection-limit test (PostgreSQL's default): the caps
 * on a tenant's sessions must leave room in it for another project's data API and the
 * platform's own logins. */
export const connectionTestMaxConnections = 100;

/** How a connection past a tenant's cap is refused: PostgreSQL's too_many_connections (a role's
 * or a database's CONNECTION LIMIT), or the database router's own refusal with the same code. */
export const connectionRefusalCodes = ["53300"];
