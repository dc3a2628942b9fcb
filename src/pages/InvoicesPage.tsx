import { InvoicesView } from '../invoices/InvoicesView';

/** Serves /invoices: the rejected invoice lines and the import rule drawer. */
export function InvoicesPage() {
  return <InvoicesView />;
}
