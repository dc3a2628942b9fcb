import { Alert, Anchor, Button, Group, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconDatabaseImport, IconRefresh, IconUpload } from '@tabler/icons-react';
import { Link } from 'wouter';
import { CsvImportButton } from '../filters/CsvImportButton';

interface ReportCalloutsProps {
  /** GET /data_existence said the account has no finance data. */
  noFinanceData: boolean;
  recalculating: boolean;
  stale: boolean;
  /** Editors get the stale callout's Refresh button. */
  canRefresh: boolean;
  refreshing: boolean;
  onRefresh(): void;
}

/** The report page's callouts (spec: first document sections 2 and 4). */
export function ReportCallouts({ noFinanceData, recalculating, stale, canRefresh, refreshing, onRefresh }: ReportCalloutsProps) {
  if (!noFinanceData && !recalculating && !stale) return null;
  return (
    <Stack gap="sm">
      {noFinanceData && (
        <Alert color="blue" icon={<IconDatabaseImport size={18} />} title="Import your data">
          <Group justify="space-between" gap="sm">
            <Text size="sm">
              This report has nothing to show yet. Import payments from a CSV file or connect a billing tool in{' '}
              <Anchor component={Link} href="/settings">
                Settings
              </Anchor>
              .
            </Text>
            <CsvImportButton label="Import CSV" size="xs" variant="light" leftSection={<IconUpload size={14} />} />
          </Group>
        </Alert>
      )}
      {recalculating && (
        <Alert color="yellow" icon={<IconRefresh size={18} />} title="Recalculating" role="status">
          The report is being recalculated; its sections update as they finish.
        </Alert>
      )}
      {stale && (
        <Alert color="orange" icon={<IconAlertTriangle size={18} />} title="Data may be outdated" role="status">
          <Group justify="space-between" wrap="nowrap">
            <Text size="sm">Your data changed since this report was calculated.</Text>
            {canRefresh && (
              <Button size="xs" variant="light" color="orange" leftSection={<IconRefresh size={14} />} loading={refreshing} onClick={onRefresh}>
                Refresh
              </Button>
            )}
          </Group>
        </Alert>
      )}
    </Stack>
  );
}
