// OpenAPI (Management API): auth configuration fields newer clients (the CLI's `config push`) require
// that the published document does not list yet, with their values here (read-only).
export const newerFields: Readonly<Record<string, boolean>> = { security_update_password_require_current_password: false };
