// Widget: work in progress (a project being made, a branch copied, a health poll), announced to
// screen readers, with the seconds it has taken so far.
import { useState } from "react";
import { useNow } from "./useNow";

export function Progress({ label, detail }: { label: string; detail?: string }) {
  const [started] = useState(Date.now);
  const now = useNow(true);
  const seconds = Math.max(0, Math.floor((now - started) / 1000));
  return (
    <div role="status" className="progress">
      <progress aria-label={label} />
      <span>
        {label}… {seconds} s{detail ? ` · ${detail}` : ""}
      </span>
    </div>
  );
}
