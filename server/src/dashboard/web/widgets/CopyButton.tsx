// Widget: copies a value to the clipboard; where the browser offers no clipboard (a page not
// served over https or localhost), it says so and the value stays selectable.
import { useState } from "react";

export function CopyButton({ value, label }: { value: string; label: string }) {
  const [said, setSaid] = useState("");
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setSaid("Copied");
    } catch {
      setSaid("The browser refused the clipboard: select the text and copy it");
    }
  };
  return (
    <span className="copy">
      <button type="button" onClick={copy} aria-label={label}>
        Copy
      </button>
      <span aria-live="polite" className="copy-said">
        {said}
      </span>
    </span>
  );
}
