import { fieldClass } from "./PasswordField";

/** The longest e-mail address accepted (RFC 5321's path limit), as the server's schemas do. */
const EMAIL_MAX = 254;

/** A required e-mail address input under its label (sign-in, sign-up, reset, resend, change). */
export function EmailField({
  label,
  name = "email",
  testId,
}: {
  label: string;
  name?: string;
  testId?: string;
}) {
  return (
    <label className="block text-sm font-medium">
      {label}
      <input
        name={name}
        type="email"
        required
        maxLength={EMAIL_MAX}
        autoComplete="email"
        className={fieldClass}
        data-testid={testId}
      />
    </label>
  );
}

/** A form's error line, announced to screen readers; nothing when there is none. */
export function FormError({ error }: { error: string | null | undefined }) {
  return error ? (
    <p role="alert" className="text-sm text-red-600">
      {error}
    </p>
  ) : null;
}
