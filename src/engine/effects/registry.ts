import type { RenderRequest } from "@/core/ports/renderer";
import type { EffectOutput } from "../shared/image-io";
import { render as babyFaceGenerator } from "./baby-face-generator/render";
import { check as babyFaceGeneratorCheck } from "./baby-face-generator/rules";
import { render as bustEnhancement } from "./boob-boost-effect/render";
import { check as bustEnhancementCheck } from "./boob-boost-effect/rules";
import { render as hugMyYoungerSelf } from "./hug-my-younger-self/render";
import { check as hugMyYoungerSelfCheck } from "./hug-my-younger-self/rules";
import { render as threeDCaricature } from "./3d-caricature/render";
import { check as threeDCaricatureCheck } from "./3d-caricature/rules";
import { render as threeDFigure } from "./3d-finger/render";
import { check as threeDFigureCheck } from "./3d-finger/rules";
import { render as emojiIcon } from "./emoji-icon/render";
import { check as emojiIconCheck } from "./emoji-icon/rules";
import { render as hairStyleGenerator } from "./hair-style-generator/render";
import { check as hairCheck } from "./hair-style-generator/rules";
import { render as pixieCutFilter } from "./pixie-cut-filter/render";
import { render as stylizedStickers } from "./stylized-stickers/render";
import { check as stylizedStickersCheck } from "./stylized-stickers/rules";
import { render as sixteenBitCharacter } from "./16-bit-video-game-character/render";
import { render as artisticPortrait } from "./artistic-portrait/render";
import { render as coloringPage } from "./coloring-page/render";
import { render as gtaStyleFilter } from "./gta-style-filter/render";
import { render as imageOutpainting } from "./image-outpainting/render";
import { render as imageRestoration } from "./image-restoration/render";
import { render as linkedInProfilePhoto } from "./linkedIn-profile-photo-generator/render";
import { render as studioPortrait } from "./studio-portrait/render";
import { check as studioPortraitCheck } from "./studio-portrait/rules";
import { check as linkedInProfilePhotoCheck } from "./linkedIn-profile-photo-generator/rules";
import { render as y2kStyle } from "./y2k-style-ai/render";
import { render as imageToLineDrawing } from "./image-to-line-drawing/render";
import { render as invertedFaceFilter } from "./inverted-face-filter/render";
import { render as pixelIllustration } from "./pixel-illustration/render";
import { render as watermarkRemover } from "./watermark-remover/render";

export type EffectRenderer = (req: RenderRequest) => Promise<EffectOutput>;

/** The local engine's effects, by catalogue id. An effect is available once it is here. */
export const LOCAL_EFFECTS: Readonly<Record<string, EffectRenderer>> = {
  "inverted-face-filter": invertedFaceFilter,
  "pixel-illustration": pixelIllustration,
  "image-to-line-drawing": imageToLineDrawing,
  "artistic-portrait": artisticPortrait,
  "16-bit-video-game-character": sixteenBitCharacter,
  "gta-style-filter": gtaStyleFilter,
  "coloring-page": coloringPage,
  "y2k-style-ai": y2kStyle,
  "image-outpainting": imageOutpainting,
  "image-restoration": imageRestoration,
  "studio-portrait": studioPortrait,
  "linkedIn-profile-photo-generator": linkedInProfilePhoto,
  "watermark-remover": watermarkRemover,
  "boob-boost-effect": bustEnhancement,
  "baby-face-generator": babyFaceGenerator,
  "hug-my-younger-self": hugMyYoungerSelf,
  "stylized-stickers": stylizedStickers,
  "emoji-icon": emojiIcon,
  "hair-style-generator": hairStyleGenerator,
  "pixie-cut-filter": pixieCutFilter,
  "3d-finger": threeDFigure,
  "3d-caricature": threeDCaricature,
};

export type InputCheck = (req: RenderRequest) => Promise<void>;

/**
 * Input rules checked before any credit is charged (faces found, facing the camera...).
 * Each rejects with the same EngineError its render would; effects without rules beyond
 * the catalogue's are absent.
 */
export const LOCAL_INPUT_CHECKS: Readonly<Record<string, InputCheck>> = {
  "studio-portrait": studioPortraitCheck,
  "linkedIn-profile-photo-generator": linkedInProfilePhotoCheck,
  "boob-boost-effect": bustEnhancementCheck,
  "baby-face-generator": babyFaceGeneratorCheck,
  "hug-my-younger-self": hugMyYoungerSelfCheck,
  "stylized-stickers": stylizedStickersCheck,
  "emoji-icon": emojiIconCheck,
  "hair-style-generator": hairCheck,
  "pixie-cut-filter": hairCheck,
  "3d-finger": threeDFigureCheck,
  "3d-caricature": threeDCaricatureCheck,
};
