"use client";
import Lightbox from "yet-another-react-lightbox";
import "yet-another-react-lightbox/styles.css";

/** Full-screen slider over the results (loaded on demand). */
export default function ResultLightbox({
  index,
  onClose,
  slides,
}: {
  index: number;
  onClose(): void;
  slides: Array<{ src: string; alt: string }>;
}) {
  return <Lightbox open index={index} close={onClose} slides={slides} />;
}
