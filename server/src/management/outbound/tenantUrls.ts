// Outbound stage: a URL a tenant gave (an OIDC issuer, a JWKS URL, SAML metadata) → the bytes it
// answers, fetched under one rule: https only (plain http too under `--tenant-urls local`), the
// address judged as the socket connects (a name that resolves elsewhere on a second lookup gains
// nothing), no redirect followed, the body read as a stream up to a cap, one deadline for the
// whole exchange. A failure names its kind only: never a port's state, the upstream status or a
// byte of what was answered.
import { lookup as dnsLookup } from "node:dns/promises";
import { isIP, type LookupFunction } from "node:net";
import { Agent, buildConnector, errors, request } from "undici";
import { invalid } from "../errors/domainError";
import { classifyAddress } from "./publicAddress";

/** `public`: https to public addresses only; `local`: plain http and loopback addresses too. */
export type TenantUrlAccess = "public" | "local";

export type HostLookup = (hostname: string) => Promise<{ address: string; family: number }[]>;

export interface TenantUrlPolicy {
  access: TenantUrlAccess;
  /** Resolves host names (the system's resolver when absent; tests pass their own records). */
  lookup?: HostLookup;
}

/** The rule when the operator chose none. */
export const publicOnly: TenantUrlPolicy = { access: "public" };

export const tenantFetchLimits = { maxBytes: 1024 * 1024, timeoutMs: 5000 };

export type FailureKind = "scheme" | "refused-address" | "unreachable" | "timeout" | "redirect" | "http-error" | "too-large" | "not-json";

function failureText(kind: FailureKind): string {
  switch (kind) {
    case "scheme":
      return "only https URLs are fetched";
    case "refused-address":
      return "the host's address is not a public one (loopback, private, link-local, metadata and other special addresses are refused)";
    case "unreachable":
      return "could not connect (the name did not resolve, or the connection or its TLS handshake failed)";
    case "timeout":
      return `no complete answer within ${tenantFetchLimits.timeoutMs / 1000} seconds`;
    case "redirect":
      return "it answered with a redirect, and redirects are not followed";
    case "http-error":
      return "it answered with an HTTP error status";
    case "too-large":
      return `it answered more than ${tenantFetchLimits.maxBytes / (1024 * 1024)} MiB`;
    case "not-json":
      return "it did not answer JSON";
    default: {
      const never: never = kind;
      return never;
    }
  }
}

export class TenantFetchError extends Error {
  constructor(readonly kind: FailureKind) {
    super(failureText(kind));
  }
}

const schemeAllowed = (url: URL, policy: TenantUrlPolicy) => url.protocol === "https:" || (url.protocol === "http:" && policy.access === "local");
const addressRefused = (address: string, policy: TenantUrlPolicy) => classifyAddress(address, { allowLoopback: policy.access === "local" }).kind === "refused";
/** Whether a URL's host (`[…]` around IPv6) is an address literal that the rule refuses. */
function refusedLiteral(hostname: string, policy: TenantUrlPolicy): boolean {
  const literal = hostname.replace(/^\[(.*)\]$/, "$1");
  return isIP(literal) !== 0 && addressRefused(literal, policy);
}

/** A URL the server may fetch later, or a 400 naming the field (the tenant's own text only). */
export function checkedTenantUrl(field: string, value: string, policy: TenantUrlPolicy): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(`${field} is not a URL: ${value}`);
  }
  if (!schemeAllowed(url, policy)) throw invalid(`${field} must be an https URL`);
  if (refusedLiteral(url.hostname, policy)) throw invalid(`${field}: ${failureText("refused-address")}`);
  return url;
}

/** The resolver handed to the socket: every address of the name is judged, and one refused
 * address refuses the name (no picking the public answer of a mixed set). */
function guardedLookup(policy: TenantUrlPolicy): LookupFunction {
  const resolve: HostLookup = policy.lookup ?? ((hostname) => dnsLookup(hostname, { all: true }));
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (found) => {
        const addresses = found.filter((a) => !options.family || a.family === options.family);
        if (addresses.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), "", 0);
        if (addresses.some((a) => addressRefused(a.address, policy))) return callback(new TenantFetchError("refused-address"), "", 0);
        if (options.all) return (callback as unknown as (e: null, all: typeof addresses) => void)(null, addresses);
        return callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (e: NodeJS.ErrnoException) => callback(e, "", 0),
    );
  };
}

/** Connects through the guarded resolver; an address literal (which sockets never look up) is
 * judged here. `connected` turns true once a socket is up, so a deadline hit before that reads as
 * unreachable, like a refused connection (a dropped SYN and a closed port look alike). */
function guardedConnector(policy: TenantUrlPolicy, state: { connected: boolean }): buildConnector.connector {
  const connect = buildConnector({ lookup: guardedLookup(policy), timeout: tenantFetchLimits.timeoutMs });
  return (options, callback) => {
    if (refusedLiteral(options.hostname, policy)) return callback(new TenantFetchError("refused-address"), null);
    connect(options, (...result) => {
      if (result[0] === null) state.connected = true;
      callback(...result);
    });
  };
}

function failureOf(e: unknown, deadline: AbortSignal, connected: boolean): TenantFetchError {
  for (let cause: unknown = e; cause instanceof Error; cause = (cause as { cause?: unknown }).cause) {
    if (cause instanceof TenantFetchError) return cause;
  }
  const timedOut = deadline.aborted || e instanceof errors.HeadersTimeoutError || e instanceof errors.BodyTimeoutError;
  return new TenantFetchError(timedOut && connected ? "timeout" : "unreachable");
}

/** The body of a 2xx answer to GET `url`, at most `tenantFetchLimits.maxBytes`. */
export async function fetchTenantUrl(url: URL, policy: TenantUrlPolicy, accept: string): Promise<Buffer> {
  if (!schemeAllowed(url, policy)) throw new TenantFetchError("scheme");
  const { maxBytes, timeoutMs } = tenantFetchLimits;
  const deadline = AbortSignal.timeout(timeoutMs);
  const state = { connected: false };
  // One agent per fetch: no pooled socket outlives the check made when it connected.
  const agent = new Agent({ connect: guardedConnector(policy, state), headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connections: 1 });
  try {
    const response = await request(url, { dispatcher: agent, method: "GET", headers: { accept, "user-agent": "pg-graphql-server" }, signal: deadline });
    try {
      if (response.statusCode >= 300 && response.statusCode < 400) throw new TenantFetchError("redirect");
      if (response.statusCode < 200 || response.statusCode >= 300) throw new TenantFetchError("http-error");
      if (Number(response.headers["content-length"] ?? 0) > maxBytes) throw new TenantFetchError("too-large");
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body) {
        size += (chunk as Buffer).length;
        if (size > maxBytes) throw new TenantFetchError("too-large");
        chunks.push(chunk as Buffer);
      }
      return Buffer.concat(chunks);
    } finally {
      // Whatever is left unread is dropped; the abort this raises on the stream is expected.
      response.body.on("error", () => {}).destroy();
    }
  } catch (e) {
    throw failureOf(e, deadline, state.connected);
  } finally {
    await agent.destroy();
  }
}

/** The JSON document at `url` (under the same rule). */
export async function fetchTenantJson(url: URL, policy: TenantUrlPolicy): Promise<unknown> {
  const body = await fetchTenantUrl(url, policy, "application/json");
  try {
    return JSON.parse(body.toString("utf8").replace(/^\uFEFF/, ""));
  } catch {
    throw new TenantFetchError("not-json");
  }
}
