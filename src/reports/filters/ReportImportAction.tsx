import { IconDatabaseImport } from '@tabler/icons-react';
import { CsvImportButton } from './CsvImportButton';

/** The report page's 'Import data' action (editors): the CSV import dialog of Settings, without leaving the report. */
export function ReportImportAction() {
  // An icon with its name in a tooltip: the action bar keeps one row at 1280 px.
  return <CsvImportButton label="Import data" icon={<IconDatabaseImport size={18} />} />;
}
