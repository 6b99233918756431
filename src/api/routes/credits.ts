import { Hono } from "hono";
import { isAdmin } from "@/core/admin/roles";
import { getBalance, listLedger } from "@/core/credits";
import { listImages } from "@/core/images";
import { getPlanStatus } from "@/core/plans";
import { requireUser, type ApiEnv } from "../context";

/** Balance, ledger history and the user's past results. */
export function creditRoutes() {
  return (
    new Hono<ApiEnv>()
      .get("/credits", async (c) => {
        const user = requireUser(c);
        return c.json({ balance: await getBalance(c.get("services").database.db, user.id) });
      })
      .get("/credits/ledger", async (c) => {
        const user = requireUser(c);
        return c.json({ entries: await listLedger(c.get("services").database.db, user.id) });
      })
      // Signed out is a normal state for the header, not an error: 200 with user null.
      .get("/me", async (c) => {
        const user = c.get("user");
        if (!user) return c.json({ user: null, balance: null, plan: null });
        const s = c.get("services");
        const [balance, plan, admin] = await Promise.all([
          getBalance(s.db, user.id),
          getPlanStatus(s.db, s.pricing, s.env.SUBSCRIBER_UPLOAD_CAP, user.id),
          isAdmin(s.db, user.id),
        ]);
        // `isAdmin` only for admins: the header shows them a link to /admin.
        return c.json({ user, balance, plan, ...(admin ? { isAdmin: true } : {}) });
      })
      .get("/images", async (c) => {
        const user = requireUser(c);
        return c.json({ images: await listImages(c.get("services").database.db, user.id) });
      })
  );
}
