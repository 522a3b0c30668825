// Projects page: a new organization (POST /v1/organizations), its creator its owner.
import { useId, useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { api } from "../api/apiClient";
import { queryClient } from "../api/queries";
import type { Organization } from "../api/types";
import { ErrorNotice } from "../widgets/ErrorNotice";
import { Form } from "../widgets/Form";

export function CreateOrganizationForm({ onClose }: { onClose(): void }) {
  const [name, setName] = useState("");
  const id = useId();
  const create = useMutation({
    mutationFn: () => api.post<Organization>("/v1/organizations", { name: name.trim() }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ["organizations"] });
      onClose();
    },
  });
  return (
    <Form
      className="panel"
      label="New organization"
      onSubmit={() => create.mutate()}
    >
      <h2>New organization</h2>
      <label htmlFor={id}>Name</label>
      <input id={id} value={name} onChange={(e) => setName(e.target.value)} required autoFocus />
      <div className="actions">
        <button type="submit" disabled={create.isPending || name.trim() === ""}>
          Create organization
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
      {create.error && <ErrorNotice error={create.error} />}
    </Form>
  );
}
