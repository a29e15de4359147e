export { createStorageProvider, storageToolReport, type StorageProviderDeps } from "./provider.ts";
export type { ProvisionedStorage, StorageProvider, StorageRequest } from "./types.ts";
