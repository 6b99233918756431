CREATE TABLE "payment" (
	"id" text PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"product_id" text NOT NULL,
	"kind" text NOT NULL,
	"amount" integer NOT NULL,
	"currency" text NOT NULL,
	"paid_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payment_amount_non_negative" CHECK ("payment"."amount" >= 0)
);
--> statement-breakpoint
CREATE INDEX "payment_paid_idx" ON "payment" USING btree ("paid_at");