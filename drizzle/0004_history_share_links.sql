CREATE TABLE "share_link" (
	"token" text PRIMARY KEY NOT NULL,
	"image_id" text NOT NULL,
	"user_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "task" ADD COLUMN "batch_id" text;--> statement-breakpoint
ALTER TABLE "share_link" ADD CONSTRAINT "share_link_image_id_image_id_fk" FOREIGN KEY ("image_id") REFERENCES "public"."image"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "share_link" ADD CONSTRAINT "share_link_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "share_link_image_idx" ON "share_link" USING btree ("image_id");--> statement-breakpoint
CREATE UNIQUE INDEX "share_link_active_uq" ON "share_link" USING btree ("image_id") WHERE "share_link"."revoked_at" is null;--> statement-breakpoint
CREATE INDEX "task_user_batch_idx" ON "task" USING btree ("user_id","batch_id") WHERE "task"."batch_id" is not null;