// HTTP stage (Management API): the shape of an operation handler. Handlers are keyed by the
// document's operationId; the request they get is already authenticated, rate limited and
// validated against the document, so they only do the work. Its path parameters, query, body
// and answers are typed per operation from the adjusted document (managementApi.generated.d.ts).
import type { FastifyRequest } from "fastify";
import type { components, operations } from "../openapi/managementApi.generated";
import type { SourceUpload } from "./sourceUpload";
import type { Services } from "../services";
import type { User } from "../users/userStore";
import type { OAuthGrant } from "../users/oauthBearer";

export type OperationId = keyof operations;

/** A schema of the document's components, by name. */
export type Schema<Name extends keyof components["schemas"]> = components["schemas"][Name];

type OperationParameters<O extends OperationId> = operations[O]["parameters"];
type Otherwise<T, Fallback> = [T] extends [never] ? Fallback : T;
type None = Record<string, never>;

/** What a body of another media type than JSON arrives as, from its content-type parser
 * (functions/functionUploads.ts); a multipart body is read by its handler, part by part. */
interface UploadBodies {
  "application/vnd.denoland.eszip": Buffer;
  "text/plain": SourceUpload;
  "multipart/form-data": undefined;
}

type MediaBody<C> = {
  [M in keyof C]: M extends "application/json" ? C[M] : M extends keyof UploadBodies ? UploadBodies[M] : unknown;
}[keyof C];

/** The request body an operation was validated against: by media type, the JSON schema's type
 * or the parsed upload; `undefined` where the body is optional or absent. */
export type RequestBody<O extends OperationId> = operations[O] extends { requestBody?: infer R }
  ? R extends { content: infer C }
    ? MediaBody<C>
    : undefined
  : undefined;

/** What every call has, whichever its operation: what helpers shared by operations take. */
export interface Caller {
  services: Services;
  user: User;
  grant?: OAuthGrant;
  request: FastifyRequest;
}

/** A caller of an operation whose path has these parameters (`ProjectCall`: a `ref`). */
export type CallWith<Path> = Caller & { params: Path };
export type ProjectCall = CallWith<{ ref: string }>;

export interface Call<O extends OperationId> extends Caller {
  params: Otherwise<NonNullable<OperationParameters<O>["path"]>, None>;
  query: Otherwise<NonNullable<OperationParameters<O>["query"]>, None>;
  body: RequestBody<O>;
}

/** What an answer of one status carries: its JSON schema's type, or any other media type's;
 * nothing where the document lists no content. */
type ResponseBody<R> = R extends { content: infer C }
  ? C extends { "application/json": infer J }
    ? J
    : C[keyof C]
  : NoContent;

/** Where the document lists no content: no body, or the `{}` some handlers have always sent. */
type NoContent = undefined | Record<string, never>;

/** The statuses a handler answers with; refusals are thrown (`ApiError`), not answered. */
type Success = 200 | 201 | 202 | 204;

type Responses<O extends OperationId> = operations[O]["responses"];

export interface AnswerOf<S, B> {
  status: S;
  /** Serialized with the operation's response schema for that status, when it has one. */
  body: B;
  /** Sent as is with this content type instead of serialized (function bundles). */
  contentType?: string;
  headers?: Record<string, string>;
}

/** Bytes or text sent as they are under their own content type (a function's files, a diff). */
interface RawAnswer<S> {
  status: S;
  body: Buffer | string;
  contentType: string;
  headers?: Record<string, string>;
}

/** An answer the document lists for the operation: a success status it declares, with that
 * status's body (or raw bytes under a content type). */
export type Answer<O extends OperationId> = {
  [S in keyof Responses<O> & Success]: AnswerOf<S, ResponseBody<Responses<O>[S]>> | RawAnswer<S>;
}[keyof Responses<O> & Success];

export type OperationHandler<O extends OperationId> = (call: Call<O>) => Promise<Answer<O>>;

/** A handler as the router holds it: any operation's, called with the validated request. */
export type AnyHandler = (call: Caller & { params: unknown; query: unknown; body: unknown }) => Promise<AnswerOf<number, unknown>>;

/** One API area (organizations, projects, ...): its handlers by operationId. */
export type ApiArea = { [O in OperationId]?: OperationHandler<O> };

export function ok<B>(body: B): AnswerOf<200, B>;
export function ok<B, S extends number>(body: B, status: S): AnswerOf<S, B>;
export function ok(body: unknown, status = 200): AnswerOf<number, unknown> {
  return { status, body };
}
