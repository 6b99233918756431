/**
 * The spec's free-plan cap ("Free plan: 2 Images max"): images per submit for users
 * without a subscription. The one definition: the server enforces it (src/core/plans.ts,
 * the submit gate), the UI mirrors it, plans may not go below it. Browser-safe: no imports.
 */
export const FREE_UPLOAD_CAP = 2;
