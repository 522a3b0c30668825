// Session stage: a personal access token typed or pasted → checked with one call (/v1/profile),
// then kept for this tab. The token field is a password field: it is not shown on screen.
import { useId, useState } from "react";
import { ApiClient, api } from "../api/apiClient";
import { queryClient } from "../api/queries";
import type { Profile } from "../api/types";
import { ErrorNotice } from "../widgets/ErrorNotice";
import { PageTitle } from "../app/PageTitle";
import { signIn } from "./tokenStore";
import { Form } from "../widgets/Form";

export function SignIn() {
  const [token, setToken] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();
  const submit = async () => {
    const typed = token.trim();
    if (typed === "") return;
    setBusy(true);
    setError(null);
    try {
      const profile = await new ApiClient(api.rate, () => typed).get<Profile>("/v1/profile");
      signIn(typed);
      queryClient.setQueryData(["profile"], profile);
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  };
  return (
    <main id="content" className="signin">
      <PageTitle title="Sign in" />
      <p>
        Sign in with a personal access token of this server's Management API (<code>sbp_…</code>). Make one with{" "}
        <code>node server/bin.js token create --email you@example.com --platform-database-url …</code>; <code>make demo</code> prints an
        address that signs in by itself.
      </p>
      <p>The token stays in this browser tab only, until you sign out or close the tab.</p>
      <Form
        onSubmit={() => void submit()}
      >
        <label htmlFor={id}>Access token</label>
        <input id={id} type="password" value={token} onChange={(e) => setToken(e.target.value)} autoComplete="off" spellCheck={false} required />
        <button type="submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </Form>
      {error !== null && <ErrorNotice error={error} />}
    </main>
  );
}
