// API stage: a call of the public Management API (/v1, this origin) with the signed-in token →
// its JSON answer, or an ApiFailure with the status, the API's message and a 429's retry time.
// Every answer's rate-limit headers go to one RateLimit, which holds calls back during a block.
import { ApiFailure, failureDetail } from "./apiFailure";
import { RateLimit } from "./rateLimit";
import { currentToken } from "../session/tokenStore";

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

function parsed(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export class ApiClient {
  constructor(
    readonly rate: RateLimit,
    private readonly token: () => string | null,
    private readonly now: () => number = Date.now,
  ) {}

  async call<T>(method: Method, path: string, body?: unknown): Promise<T> {
    const blocked = this.rate.blockedFor(this.now());
    if (blocked > 0) throw new ApiFailure(429, "The rate limit was reached: no call is sent until it lifts", this.now() + blocked);
    const token = this.token();
    if (token === null) throw new ApiFailure(401, "Not signed in");
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    let response: Response;
    try {
      response = await fetch(path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}), credentials: "omit" });
    } catch (e) {
      throw new ApiFailure(0, e instanceof Error ? e.message : String(e));
    }
    this.rate.observe(response.headers, response.status, this.now());
    const answer = parsed(await response.text());
    if (!response.ok) {
      throw new ApiFailure(response.status, failureDetail(answer, response.statusText), response.status === 429 ? this.rate.current().blockedUntil : undefined);
    }
    return answer as T;
  }

  get<T>(path: string): Promise<T> {
    return this.call<T>("GET", path);
  }

  post<T>(path: string, body?: unknown): Promise<T> {
    return this.call<T>("POST", path, body);
  }
}

/** The dashboard's one client: every page's calls share its rate-limit view. */
export const api = new ApiClient(new RateLimit(), currentToken);
