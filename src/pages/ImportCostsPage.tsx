/** Stub registered by the issue-22 scaffolding (route /import-costs); filled in by its owner. */
export function ImportCostsPage() {
  return null;
}
