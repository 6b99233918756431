CREATE TABLE "user_preference" (
	"user_id" text PRIMARY KEY NOT NULL,
	"keep_originals" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "credit_entry" DROP CONSTRAINT "credit_entry_user_id_user_id_fk";
--> statement-breakpoint
ALTER TABLE "upload" ADD COLUMN "keep_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "user_preference" ADD CONSTRAINT "user_preference_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "upload_user_idx" ON "upload" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "upload_kept_idx" ON "upload" USING btree ("keep_until") WHERE "upload"."deleted_at" is null and "upload"."keep_until" is not null;