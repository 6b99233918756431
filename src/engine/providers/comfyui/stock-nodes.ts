/**
 * Stock ComfyUI node classes the built-in workflows may use, with their input names.
 *
 * Checked by reading ComfyUI's own source at commit
 * a125cd84b054a57729b5eecab930ca9408719832 (Comfy-Org/ComfyUI, 2025-10-12): nodes.py
 * (NODE_CLASS_MAPPINGS and each class's INPUT_TYPES), comfy_extras/nodes_qwen.py,
 * nodes_cfg.py, nodes_model_advanced.py, nodes_sd3.py and nodes_post_processing.py (all five
 * in nodes.py's built-in extra-node list, so present without custom nodes). Only classes
 * and inputs seen there belong here; the workflow test holds every built-in workflow to it,
 * and the local fake refuses any other class the way ComfyUI does.
 */

export interface StockNode {
  required: readonly string[];
  optional: readonly string[];
  /** Number of outputs (a link's slot index must be below it). */
  outputs: number;
}

export const STOCK_COMFYUI_COMMIT = "a125cd84b054a57729b5eecab930ca9408719832";

export const STOCK_NODES: Readonly<Record<string, StockNode>> = {
  // nodes.py
  UNETLoader: { required: ["unet_name", "weight_dtype"], optional: [], outputs: 1 },
  CLIPLoader: { required: ["clip_name", "type"], optional: ["device"], outputs: 1 },
  VAELoader: { required: ["vae_name"], optional: [], outputs: 1 },
  LoraLoaderModelOnly: { required: ["model", "lora_name", "strength_model"], optional: [], outputs: 1 },
  LoadImage: { required: ["image"], optional: [], outputs: 2 },
  CLIPTextEncode: { required: ["text", "clip"], optional: [], outputs: 1 },
  KSampler: {
    required: [
      "model",
      "seed",
      "steps",
      "cfg",
      "sampler_name",
      "scheduler",
      "positive",
      "negative",
      "latent_image",
      "denoise",
    ],
    optional: [],
    outputs: 1,
  },
  VAEDecode: { required: ["samples", "vae"], optional: [], outputs: 1 },
  VAEEncode: { required: ["pixels", "vae"], optional: [], outputs: 1 },
  SaveImage: { required: ["images", "filename_prefix"], optional: [], outputs: 0 },
  PreviewImage: { required: ["images"], optional: [], outputs: 0 },
  ImageScale: { required: ["image", "upscale_method", "width", "height", "crop"], optional: [], outputs: 1 },
  // comfy_extras/nodes_qwen.py
  TextEncodeQwenImageEditPlus: {
    required: ["clip", "prompt"],
    optional: ["vae", "image1", "image2", "image3"],
    outputs: 1,
  },
  // comfy_extras/nodes_model_advanced.py
  ModelSamplingAuraFlow: { required: ["model", "shift"], optional: [], outputs: 1 },
  // comfy_extras/nodes_cfg.py
  CFGNorm: { required: ["model", "strength"], optional: [], outputs: 1 },
  // comfy_extras/nodes_sd3.py
  EmptySD3LatentImage: { required: ["width", "height", "batch_size"], optional: [], outputs: 1 },
  // comfy_extras/nodes_post_processing.py
  ImageScaleToTotalPixels: { required: ["image", "upscale_method", "megapixels"], optional: [], outputs: 1 },
};

/** Classes whose results ComfyUI lists under a prompt's outputs (OUTPUT_NODE). */
export const OUTPUT_NODES: readonly string[] = ["SaveImage", "PreviewImage"];
