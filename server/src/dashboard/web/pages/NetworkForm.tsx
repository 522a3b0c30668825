// Settings page: the networks allowed to reach the project (its data API and, where this server
// manages pg_hba.conf, its database), one CIDR a line; empty allows every address.
import { useEffect, useId, useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { api } from "../api/apiClient";
import { projectApi } from "../api/paths";
import { invalidateResource, useProjectResource } from "../api/queries";
import type { NetworkRestrictions } from "../api/types";
import { ErrorNotice } from "../widgets/ErrorNotice";
import { Progress } from "../widgets/Progress";
import { Form } from "../widgets/Form";

export function cidrLists(text: string): { dbAllowedCidrs: string[]; dbAllowedCidrsV6: string[] } {
  const all = text.split(/[\s,]+/).filter((c) => c !== "");
  return { dbAllowedCidrs: all.filter((c) => !c.includes(":")), dbAllowedCidrsV6: all.filter((c) => c.includes(":")) };
}

export function NetworkForm({ projectRef }: { projectRef: string }) {
  const current = useProjectResource<NetworkRestrictions>(projectRef, "/network-restrictions");
  const [text, setText] = useState("");
  const id = useId();
  useEffect(() => {
    const config = current.data?.config;
    if (config) setText([...(config.dbAllowedCidrs ?? []), ...(config.dbAllowedCidrsV6 ?? [])].join("\n"));
  }, [current.data]);
  const apply = useMutation({
    mutationFn: () => api.post(projectApi(projectRef, "/network-restrictions/apply"), cidrLists(text)),
    onSettled: () => invalidateResource(projectRef, "/network-restrictions"),
  });
  return (
    <section aria-labelledby="network-title">
      <h2 id="network-title">Network restrictions</h2>
      {current.error && <ErrorNotice error={current.error} onRetry={() => current.refetch()} />}
      {current.data && (
        <Form
          onSubmit={() => apply.mutate()}
        >
          <label htmlFor={id}>Allowed networks (CIDRs, one a line; none allows every address)</label>
          <textarea id={id} value={text} onChange={(e) => setText(e.target.value)} rows={4} spellCheck={false} />
          <p role="status">Status: {current.data.status}</p>
          <button type="submit" disabled={apply.isPending}>
            Apply
          </button>
        </Form>
      )}
      {apply.isPending && <Progress label="Applying the restrictions" />}
      {apply.error && <ErrorNotice error={apply.error} />}
    </section>
  );
}
