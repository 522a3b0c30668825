// Widget: a destructive action confirmed by typing a given word (a project's name, a branch's
// name); the button stays disabled until the text matches.
import { useId, useState } from "react";
import { Form } from "./Form";

export interface ConfirmByTypingProps {
  /** What must be typed. */
  word: string;
  /** The action, as the button says it ("Delete project"). */
  action: string;
  onConfirm(): void;
  onCancel(): void;
  busy?: boolean;
}

export function ConfirmByTyping({ word, action, onConfirm, onCancel, busy = false }: ConfirmByTypingProps) {
  const [typed, setTyped] = useState("");
  const id = useId();
  return (
    <Form
      className="confirm"
      onSubmit={() => typed === word && onConfirm()}
    >
      <label htmlFor={id}>
        This cannot be undone. Type <strong>{word}</strong> to confirm:
      </label>
      <input id={id} value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" autoFocus />
      <button type="submit" className="danger" disabled={typed !== word || busy}>
        {action}
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </Form>
  );
}
