export { createStorageProvider, storageToolReport, type StorageProviderDeps } from "./provider.ts";
export type { DataMount, ProvisionedStorage, StorageProvider, StorageRequest } from "./types.ts";
