"use client";
import { useTranslations } from "next-intl";
import { REASON_MAX, REASON_MIN } from "@/core/admin/reason";
import { field } from "./admin-api";

/** The required "Reason" of an admin action (adjustment, refund, suspension), as the API bounds it. */
export function ReasonField({
  value,
  onChange,
  name,
  describedBy,
}: {
  value: string;
  onChange(value: string): void;
  name: string;
  describedBy?: string;
}) {
  const t = useTranslations("admin");
  return (
    <label className="grid gap-1 text-sm">
      {t("reason")}
      <input
        className={field}
        required
        minLength={REASON_MIN}
        maxLength={REASON_MAX}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-describedby={describedBy}
        name={name}
      />
    </label>
  );
}
