// Routes (Management API): the shape of an operation handler. Handlers are keyed by the
// document's operationId; the request they get is already authenticated, rate limited and
// validated against the document, so they only do the work.
import type { FastifyRequest } from "fastify";
import type { Services } from "../services";
import type { User } from "../users/userStore";

import type { OAuthGrant } from "../users/oauthBearer";

export type { OAuthGrant };

export interface Call {
  services: Services;
  user: User;
  grant?: OAuthGrant;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  request: FastifyRequest;
}

export interface Answer {
  status: number;
  /** Serialized with the operation's response schema for that status, when it has one. */
  body: unknown;
  /** Sent as is with this content type instead of serialized (function bundles). */
  contentType?: string;
  headers?: Record<string, string>;
}

export type OperationHandler = (call: Call) => Promise<Answer>;

/** One API area (organizations, projects, ...): its handlers by operationId. */
export type ApiArea = Record<string, OperationHandler>;

export function ok(body: unknown, status = 200): Answer {
  return { status, body };
}
