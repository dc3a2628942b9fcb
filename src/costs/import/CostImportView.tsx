import { Anchor, Group, Skeleton, Stack } from '@mantine/core';
import { IconArrowLeft } from '@tabler/icons-react';
import { useMemo } from 'react';
import { Link } from 'wouter';
import { mappingWizardActors, type MappingWizardServices } from '../../../machines/mappingWizard/mappingWizardActors';
import { useApi } from '../../api/ApiContext';
import { FailureAlert } from '../../components/FailureAlert';
import { PageHeader } from '../../components/PageHeader';
import { MappingWizard } from '../../imports/wizard/MappingWizard';
import type { MappingWizardTexts } from '../../imports/wizard/wizardTexts';
import { useCostAttributes } from '../costsApi';
import { costImportConfig, costImportMachine, createCostImportServices } from './costImport';

const costsCount = (count: number) => (count === 1 ? '1 cost' : `${count} costs`);

/** The cost import's words around the shared steps. */
export const COST_IMPORT_TEXTS: MappingWizardTexts = {
  mapStepDescription: 'Value, date and more',
  importStepDescription: 'Save the costs',
  uploadIntro:
    'Upload a CSV file with one cost per row: its value and date, and optionally its currency (the account currency when empty), due date, invoice number, name and cost attribute values. You match the columns in the next step.',
  mappingHint: 'Pick the column of the value and of the date; map the optional columns you have and leave the others not mapped.',
  columnPickerWord: 'Field',
  requiredListTitle: 'Columns to map',
  requiredListId: 'cost-import-fields',
  skipHeadersDescription: 'The first row holds column names, not a cost',
  mappingFailureTitle: 'The costs cannot be imported yet',
  importingTitle: 'Importing your costs…',
  importingDescription: 'Every row is checked and the valid ones saved together. This page shows the result when it is done.',
  importedCount: costsCount,
  resultLink: { href: '/costs', label: 'Go to costs' },
};

function CostImportWizard({ attributes, services }: { attributes: readonly { id: string; name: string }[]; services?: MappingWizardServices }) {
  const client = useApi();
  const config = useMemo(() => costImportConfig(attributes), [attributes]);
  const logic = useMemo(() => costImportMachine(attributes).provide({ actors: mappingWizardActors(services ?? createCostImportServices(client)) }), [attributes, services, client]);
  return <MappingWizard config={config} logic={logic} texts={COST_IMPORT_TEXTS} />;
}

/** /import-costs: upload a CSV of costs, map its columns (with a preview of its first rows), import, and see what was refused. */
export function CostImportView({ services }: { services?: MappingWizardServices }) {
  const attributes = useCostAttributes();
  return (
    <>
      <Group mb="sm">
        <Anchor component={Link} href="/costs" size="sm">
          <Group gap={4} wrap="nowrap">
            <IconArrowLeft size={14} />
            Costs
          </Group>
        </Anchor>
      </Group>
      <PageHeader title="Import costs" description="Add many costs at once from a CSV file: every valid row is imported, and each refused row is listed with its number and why." />
      {attributes.data ? (
        <CostImportWizard attributes={attributes.data} services={services} />
      ) : attributes.isError && !attributes.isFetching ? (
        <FailureAlert messages={['We could not fetch your cost attributes, please refresh the page.']} />
      ) : (
        <Stack gap="md" aria-label="Loading the import">
          <Skeleton height={48} />
          <Skeleton height={180} />
        </Stack>
      )}
    </>
  );
}
