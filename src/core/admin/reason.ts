/**
 * The reason an operator gives for a credit adjustment, a refund or a suspension (written to
 * the audit log). Dependency-free: the console's forms check it as the API does.
 */
export const REASON_MIN = 3;
export const REASON_MAX = 500;

/** Whether `text` is long enough to be sent (the API trims it the same way). */
export const isReason = (text: string): boolean => text.trim().length >= REASON_MIN;
