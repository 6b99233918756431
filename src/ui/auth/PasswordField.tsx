"use client";
import { useTranslations } from "next-intl";
import { useId, useState } from "react";

export const fieldClass =
  "mt-1 block w-full rounded-lg border border-zinc-300 bg-transparent px-3 py-2 dark:border-zinc-700";

/** A password input with a show/hide toggle; the length rules match the server's (8 to 128). */
export function PasswordField({
  name,
  label,
  autoComplete,
  hint,
  minLength = 8,
  testId,
}: {
  name: string;
  label: string;
  autoComplete: "current-password" | "new-password";
  hint?: string;
  /** The policy's minimum for a new password; 1 for a current one (the server decides). */
  minLength?: number;
  testId?: string;
}) {
  const t = useTranslations("auth");
  const [visible, setVisible] = useState(false);
  const id = useId();
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium">
        {label}
      </label>
      <div className="relative">
        <input
          id={id}
          name={name}
          type={visible ? "text" : "password"}
          required
          minLength={minLength}
          maxLength={128}
          autoComplete={autoComplete}
          className={`${fieldClass} pe-20`}
          aria-describedby={hint ? `${id}-hint` : undefined}
          data-testid={testId}
          spellCheck={false}
          autoCapitalize="off"
        />
        <button
          type="button"
          className="absolute inset-y-0 end-0 me-1 my-1 rounded-md px-2 text-xs font-medium text-violet-700 hover:bg-violet-50 focus-visible:outline focus-visible:outline-2 focus-visible:outline-violet-600 dark:text-violet-300 dark:hover:bg-violet-950"
          aria-pressed={visible}
          aria-controls={id}
          onClick={() => setVisible((v) => !v)}
        >
          {visible ? t("hidePassword") : t("showPassword")}
        </button>
      </div>
      {hint ? (
        <span id={`${id}-hint`} className="mt-1 block text-xs text-zinc-600 dark:text-zinc-400">
          {hint}
        </span>
      ) : null}
    </div>
  );
}
