export { currentImageTags, ensureImage, ensureImages, type EnsureImageOptions, type EnsuredImage } from "./build.ts";
export { ensureBaseImage, type EnsuredBaseImage, type ImageProgress } from "./base-image.ts";
export { defaultLockFile, imagesDir, loadLock, readContextFiles } from "./files.ts";
export { detectMode, parseModeChoice, type ModeDecision } from "./mode.ts";
export { listImages, removeImages, type ListedImage } from "./manage.ts";
export { pinImages, pullOfficialBase, resolveOfficialDigest, type PinOptions, type PinOutcome } from "./official.ts";
