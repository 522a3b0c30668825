// Auth (Management API): the stored fields of a project's auth configuration → the whole document
// of the OpenAPI schema: every field present, set ones as set, the rest at the defaults below
// (the hosted defaults where the document's example or the seed names one; otherwise null
// where the schema allows it, else false, 0 or "").
import type { components } from "../openapi/managementApi.generated";
import { publishedDocument } from "../openapi/managementDocument";
import type { Sql } from "../platform/sql";
import { AuthConfigStore, type AuthConfigFields } from "./authConfigStore";
import { newerFields } from "../openapi/authNewerFields";

const knownDefaults: AuthConfigFields = {
  site_url: "http://localhost:3000",
  disable_signup: false,
  jwt_exp: 3600,
  api_max_request_duration: 10,
  db_max_pool_size: 10,
  db_max_pool_size_unit: "connections",
  external_email_enabled: true,
  external_phone_enabled: false,
  external_anonymous_users_enabled: false,
  mailer_autoconfirm: false,
  mailer_secure_email_change_enabled: true,
  mailer_otp_exp: 3600,
  mailer_otp_length: 6,
  smtp_max_frequency: 60,
  sms_autoconfirm: false,
  sms_max_frequency: 60,
  sms_otp_exp: 60,
  sms_otp_length: 6,
  sms_provider: "twilio",
  sms_template: "Your code is {{ .Code }}",
  mfa_max_enrolled_factors: 10,
  mfa_totp_enroll_enabled: true,
  mfa_totp_verify_enabled: true,
  mfa_phone_otp_length: 6,
  mfa_phone_max_frequency: 5,
  mfa_phone_template: "Your code is {{ .Code }}",
  password_min_length: 6,
  password_required_characters: "",
  rate_limit_anonymous_users: 30,
  rate_limit_email_sent: 2,
  rate_limit_sms_sent: 30,
  rate_limit_token_refresh: 150,
  rate_limit_verify: 30,
  rate_limit_otp: 30,
  rate_limit_web3: 30,
  refresh_token_rotation_enabled: true,
  security_refresh_token_reuse_interval: 10,
  security_captcha_enabled: false,
  security_manual_linking_enabled: false,
  security_update_password_require_reauthentication: false,
  saml_enabled: false,
  saml_allow_encrypted_assertions: false,
};

type FieldSchema = { type?: string; nullable?: boolean };

let defaults: AuthConfigFields | undefined;

/** Every field of the response schema with its default. */
export function authConfigDefaults(): AuthConfigFields {
  if (defaults) return defaults;
  const schema = publishedDocument().components.schemas["AuthConfigResponse"] as { properties: Record<string, FieldSchema> };
  const fallback = (field: FieldSchema) => (field.nullable ? null : field.type === "boolean" ? false : field.type === "string" ? "" : 0);
  defaults = { ...Object.fromEntries(Object.entries(schema.properties).map(([name, field]) => [name, name in knownDefaults ? knownDefaults[name] : fallback(field)])), ...newerFields };
  return defaults;
}

export type AuthConfigResponse = components["schemas"]["AuthConfigResponse"];

/** The whole answer: every property of the response schema (the defaults are built from its
 * property list), each stored value having passed the update body's schema of the same field. */
export function authConfigDocument(stored: AuthConfigFields): AuthConfigResponse {
  const base = authConfigDefaults();
  return Object.fromEntries(Object.keys(base).map((name) => [name, name in stored ? stored[name] : base[name]])) as AuthConfigResponse;
}

/** A project's whole auth configuration (the /v1 and /v2 answers). */
export async function projectAuthConfig(platform: Sql, projectId: number): Promise<AuthConfigResponse> {
  return authConfigDocument(await new AuthConfigStore(platform).get(projectId));
}
