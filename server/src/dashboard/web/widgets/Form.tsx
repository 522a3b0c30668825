// Widget: a form that stays on the page: submitting (a button or Enter) calls `onSubmit` and never
// navigates (the content security policy's form-action 'none' would refuse it anyway).
import type { ReactNode } from "react";

export interface FormProps {
  /** Names the form for screen readers (and tests). */
  label?: string;
  className?: string;
  onSubmit(): void;
  children: ReactNode;
}

export function Form({ label, className, onSubmit, children }: FormProps) {
  return (
    <form
      className={className}
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      {children}
    </form>
  );
}
