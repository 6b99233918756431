/** A HEIC/HEIF photo (by type, or by name when the browser gives none): browsers cannot show it. */
export const isHeif = (file: File): boolean =>
  /^image\/hei[cf](-sequence)?$/i.test(file.type) || /\.(heic|heif)$/i.test(file.name);
