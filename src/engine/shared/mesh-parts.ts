/**
 * MediaPipe face-mesh indices (468 points) of the parts the stylised faces draw: one table for
 * every effect that draws eyes, brows and lips from the mesh.
 */

/** The face's outline, from the forehead's top clockwise (in the image). */
export const MESH_OVAL = [
  10, 338, 297, 332, 284, 251, 389, 356, 454, 323, 361, 288, 397, 365, 379, 378, 400, 377, 152, 148, 176, 149,
  150, 136, 172, 58, 132, 93, 234, 127, 162, 21, 54, 103, 67, 109,
];

/** Each eye: its corners and its upper and lower lid, outer to inner. */
export const MESH_EYES = [
  {
    outer: 33,
    inner: 133,
    upper: [246, 161, 160, 159, 158, 157, 173],
    lower: [7, 163, 144, 145, 153, 154, 155],
  },
  {
    outer: 263,
    inner: 362,
    upper: [466, 388, 387, 386, 385, 384, 398],
    lower: [249, 390, 373, 374, 380, 381, 382],
  },
];

/** Each brow: its upper and lower edge. */
export const MESH_BROWS = [
  { upper: [70, 63, 105, 66, 107], lower: [46, 53, 52, 65, 55] },
  { upper: [300, 293, 334, 296, 336], lower: [276, 283, 282, 295, 285] },
];

/** The lips' outer outline. */
export const MESH_LIPS_OUTER = [
  61, 185, 40, 39, 37, 0, 267, 269, 270, 409, 291, 375, 321, 405, 314, 17, 84, 181, 91, 146,
];

/** The line between the lips, corner to corner along the upper lip's inner edge. */
export const MESH_MOUTH_LINE = [61, 78, 191, 80, 81, 82, 13, 312, 311, 310, 415, 308, 291];

/** The lower lip's inner edge, from one corner back to the other. */
export const MESH_LIP_LOWER_INNER = [308, 324, 318, 402, 317, 14, 87, 178, 88, 95, 78];

/** Under the nose, wing to wing. */
export const MESH_NOSE_BOTTOM = [98, 97, 2, 326, 327];
