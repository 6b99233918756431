"use client";
import { useTranslations } from "next-intl";
import { useState } from "react";
import { useRouter } from "@/i18n/navigation";
import { Modal } from "@/ui/primitives/Modal";

/**
 * Offered to a signed-out visitor who adds photos or presses Create: sign up (with the free
 * credits the server grants) or sign in, then come back to this effect page, where the photos
 * and options are restored from the browser (`persist` saves them before leaving).
 */
export default function SignUpToCreate({
  onClose,
  next,
  signupCredits,
  persist,
}: {
  onClose(): void;
  /** This effect page's path (without the locale): where sign-up and sign-in return. */
  next: string;
  signupCredits: number;
  persist(): Promise<boolean>;
}) {
  const t = useTranslations("upload");
  const router = useRouter();
  const [leaving, setLeaving] = useState(false);
  const go = async (page: "/sign-up" | "/sign-in") => {
    setLeaving(true);
    await persist();
    router.push(`${page}?next=${encodeURIComponent(next)}`);
  };
  return (
    <Modal
      open
      onOpenChange={(o) => !o && onClose()}
      title={t("signUpTitle")}
      description={signupCredits > 0 ? t("signUpBody", { credits: signupCredits }) : t("signUpBodyNoCredits")}
      closeLabel={t("signUpClose")}
    >
      <p className="text-sm text-zinc-600 dark:text-zinc-400">{t("signUpKept")}</p>
      <div className="mt-4 flex flex-wrap gap-2">
        <button
          type="button"
          disabled={leaving}
          onClick={() => void go("/sign-up")}
          className="rounded-lg bg-violet-600 px-4 py-2 text-sm font-semibold text-white hover:bg-violet-700 disabled:opacity-60"
          data-testid="signup-to-create"
        >
          {t("signUpAction")}
        </button>
        <button
          type="button"
          disabled={leaving}
          onClick={() => void go("/sign-in")}
          className="rounded-lg border border-zinc-300 px-4 py-2 text-sm font-semibold dark:border-zinc-700"
        >
          {t("signInAction")}
        </button>
      </div>
    </Modal>
  );
}
