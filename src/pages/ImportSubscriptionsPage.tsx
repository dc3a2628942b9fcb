import { PageHeader } from '../components/PageHeader';
import { ImportWizard } from '../imports/ImportWizard';

/** /import-subscriptions: import payments from a CSV file (upload, map the columns, import). */
export function ImportSubscriptionsPage() {
  return (
    <>
      <PageHeader
        title="Import payments"
        description="Upload a CSV file of payments, match its columns to Subscope's fields and import them in one go."
      />
      <ImportWizard />
    </>
  );
}
