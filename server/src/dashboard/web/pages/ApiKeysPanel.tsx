// Overview page: the project's API keys. Keys that act as anon (the legacy anon key, publishable
// keys) are shown with a copy button; keys that bypass row level security (service_role, secret
// keys) stay masked until revealed: secret keys are asked again with `reveal=true`, as the API
// masks them itself. A new publishable or secret key can be made here.
import { useId, useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { api } from "../api/apiClient";
import { projectApi } from "../api/paths";
import { invalidateResource, useApiKeys } from "../api/queries";
import type { ApiKey } from "../api/types";
import { CopyButton } from "../widgets/CopyButton";
import { ErrorNotice } from "../widgets/ErrorNotice";
import { Progress } from "../widgets/Progress";
import { Form } from "../widgets/Form";

/** Whether a key bypasses row level security, so it is shown only on request. */
export function isPrivileged(key: ApiKey): boolean {
  return key.type === "secret" || (key.type === "legacy" && key.name === "service_role");
}

function masked(key: ApiKey): string {
  return `${key.api_key.slice(0, 12)}${"•".repeat(20)}`;
}

function NewKeyForm({ projectRef }: { projectRef: string }) {
  const [type, setType] = useState<"publishable" | "secret">("secret");
  const [name, setName] = useState("");
  const ids = { type: useId(), name: useId() };
  const create = useMutation({
    mutationFn: () => api.post(projectApi(projectRef, "/api-keys"), { type, name: name.trim() }),
    onSuccess: () => {
      setName("");
      return invalidateResource(projectRef, "/api-keys");
    },
  });
  return (
    <Form
      className="inline-form"
      label="New API key"
      onSubmit={() => create.mutate()}
    >
      <label htmlFor={ids.type}>Type</label>
      <select id={ids.type} value={type} onChange={(e) => setType(e.target.value as "publishable" | "secret")}>
        <option value="secret">secret (service_role)</option>
        <option value="publishable">publishable (anon)</option>
      </select>
      <label htmlFor={ids.name}>Name</label>
      <input id={ids.name} value={name} onChange={(e) => setName(e.target.value)} required pattern="[a-z_][a-z0-9_]*" title="lower-case letters, digits and underscores" />
      <button type="submit" disabled={create.isPending || name.trim() === ""}>
        Create key
      </button>
      {create.error && <ErrorNotice error={create.error} />}
    </Form>
  );
}

export function ApiKeysPanel({ projectRef }: { projectRef: string }) {
  const [reveal, setReveal] = useState(false);
  const keys = useApiKeys(projectRef, reveal);
  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <p>
        Send a key in the <code>apikey</code> header. The anon and publishable keys are subject to row level security; service_role and secret keys bypass
        it: keep them on servers.
      </p>
      <button type="button" onClick={() => setReveal(!reveal)} aria-pressed={reveal}>
        {reveal ? "Hide secret keys" : "Reveal secret keys"}
      </button>
      {keys.isPending && <Progress label="Reading the keys" />}
      {keys.error && <ErrorNotice error={keys.error} onRetry={() => keys.refetch()} />}
      {keys.data && (
        <ul className="keys">
          {keys.data.map((key) => {
            const hidden = isPrivileged(key) && !reveal;
            return (
              <li key={`${key.type}:${key.id}`}>
                <span className="key-name">
                  {key.name} <span className="badge">{key.type}</span>
                </span>
                <code className="key-value" data-key-name={key.name}>
                  {hidden ? masked(key) : key.api_key}
                </code>
                {!hidden && <CopyButton value={key.api_key} label={`Copy the ${key.name} key`} />}
              </li>
            );
          })}
        </ul>
      )}
      <h3>New key</h3>
      <NewKeyForm projectRef={projectRef} />
    </section>
  );
}
