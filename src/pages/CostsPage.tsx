import { CostsView } from '../costs/CostsView';

/** Serves /costs: the costs table with its drawers. */
export function CostsPage() {
  return <CostsView />;
}
