import { CostImportView } from '../costs/import/CostImportView';

/** Serves /import-costs: the cost CSV import. */
export function ImportCostsPage() {
  return <CostImportView />;
}
