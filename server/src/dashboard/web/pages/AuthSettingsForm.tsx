// Settings page: the core auth settings (site URL, redirect URLs, sign-ups, e-mail sign-in and
// confirmation, token lifetime), read from and written to `config/auth`; only the fields changed
// are sent.
import { useEffect, useId, useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { api } from "../api/apiClient";
import { projectApi } from "../api/paths";
import { invalidateResource, useProjectResource } from "../api/queries";
import type { AuthSettings } from "../api/types";
import { ErrorNotice } from "../widgets/ErrorNotice";
import { Progress } from "../widgets/Progress";
import { Form } from "../widgets/Form";

type Field = { key: keyof AuthSettings; label: string; kind: "text" | "number" | "check" };

const fields: Field[] = [
  { key: "site_url", label: "Site URL", kind: "text" },
  { key: "uri_allow_list", label: "Redirect URLs (comma-separated)", kind: "text" },
  { key: "jwt_exp", label: "JWT lifetime (seconds)", kind: "number" },
  { key: "disable_signup", label: "Refuse new sign-ups", kind: "check" },
  { key: "external_email_enabled", label: "E-mail sign-in", kind: "check" },
  { key: "mailer_autoconfirm", label: "Confirm e-mail addresses without a mail", kind: "check" },
];

export function changedFields(before: AuthSettings, after: AuthSettings): Partial<AuthSettings> {
  const changes: Record<string, unknown> = {};
  for (const { key } of fields) if (before[key] !== after[key]) changes[key] = after[key];
  return changes as Partial<AuthSettings>;
}

export function AuthSettingsForm({ projectRef }: { projectRef: string }) {
  const current = useProjectResource<AuthSettings>(projectRef, "/config/auth");
  const [draft, setDraft] = useState<AuthSettings | null>(null);
  const idBase = useId();
  useEffect(() => setDraft(current.data ?? null), [current.data]);
  const save = useMutation({
    mutationFn: () => api.call("PATCH", projectApi(projectRef, "/config/auth"), changedFields(current.data!, draft!)),
    onSettled: () => invalidateResource(projectRef, "/config/auth"),
  });
  const set = (key: keyof AuthSettings, value: unknown) => setDraft((d) => (d ? { ...d, [key]: value } : d));
  return (
    <section aria-labelledby="auth-title">
      <h2 id="auth-title">Auth</h2>
      {current.error && <ErrorNotice error={current.error} onRetry={() => current.refetch()} />}
      {draft && (
        <Form
          className="fields"
          onSubmit={() => save.mutate()}
        >
          {fields.map((f) => {
            const id = `${idBase}-${f.key}`;
            const value = draft[f.key];
            return f.kind === "check" ? (
              <label key={f.key} className="check wide" htmlFor={id}>
                <input id={id} type="checkbox" checked={value === true} onChange={(e) => set(f.key, e.target.checked)} /> {f.label}
              </label>
            ) : (
              <span key={f.key} className="field">
                <label htmlFor={id}>{f.label}</label>
                <input
                  id={id}
                  type={f.kind}
                  value={value === null || value === undefined ? "" : String(value)}
                  onChange={(e) => set(f.key, f.kind === "number" ? (e.target.value === "" ? null : Number(e.target.value)) : e.target.value)}
                />
              </span>
            );
          })}
          <div className="actions wide">
            <button type="submit" disabled={save.isPending || Object.keys(changedFields(current.data!, draft)).length === 0}>
              Save auth settings
            </button>
          </div>
        </Form>
      )}
      {save.isPending && <Progress label="Saving the auth settings" />}
      {save.error && <ErrorNotice error={save.error} />}
      {save.isSuccess && !save.isPending && <p role="status">Saved.</p>}
    </section>
  );
}
