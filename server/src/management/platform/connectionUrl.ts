// Platform stage: a libpq connection URL → the same server reached with another database or user,
// and the parts shown to clients. Only the database and user segments are rewritten.
const pattern = /^(postgres(?:ql)?:\/\/)(?:([^@/?]*)@)?([^/?]*)(?:\/([^?]*))?(\?.*)?$/;

interface UrlParts {
  scheme: string;
  userinfo: string | undefined;
  hostport: string;
  database: string;
  search: string;
}

function parts(url: string): UrlParts {
  const match = pattern.exec(url);
  if (!match) throw new Error("a database URL must start with postgresql://");
  return { scheme: match[1]!, userinfo: match[2], hostport: match[3]!, database: decodeURIComponent(match[4] ?? ""), search: match[5] ?? "" };
}

function join(p: UrlParts): string {
  return `${p.scheme}${p.userinfo !== undefined ? `${p.userinfo}@` : ""}${p.hostport}/${encodeURIComponent(p.database)}${p.search}`;
}

export function withDatabase(url: string, database: string): string {
  return join({ ...parts(url), database });
}

export function withUser(url: string, user: string, password?: string): string {
  const credentials = encodeURIComponent(user) + (password !== undefined ? `:${encodeURIComponent(password)}` : "");
  return join({ ...parts(url), userinfo: credentials });
}

/** The URL without its password, and the password (for tools that should not see it in argv). */
export function withoutPassword(url: string): { url: string; password: string | undefined } {
  const p = parts(url);
  const [user, password] = (p.userinfo ?? "").split(/:(.*)/s);
  return { url: join({ ...p, userinfo: p.userinfo === undefined ? undefined : user }), password: password === undefined ? undefined : decodeURIComponent(password) };
}

export function databaseOf(url: string): string {
  return parts(url).database || "postgres";
}

/** The server's address without credentials or database: how a project records its host. */
export function serverKey(url: string): string {
  const p = parts(url);
  const params = new URLSearchParams(p.search.slice(1));
  const host = params.get("host") ?? (p.hostport.replace(/:\d+$/, "") || "localhost");
  const port = params.get("port") ?? /:(\d+)$/.exec(p.hostport)?.[1] ?? "5432";
  return `${host}:${port}`;
}
