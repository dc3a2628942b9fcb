import { Button, Card, Group, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconFileSpreadsheet, IconUpload } from '@tabler/icons-react';
import { useSelector } from '@xstate/react';
import { selectOpenLabel } from '../../../machines/csvImport/selectors';
import { CsvImportDialog, CsvImportStatusBadge, useCsvImport } from '../../imports/CsvImportDialog';

/**
 * Data sources: the Import CSV card. It runs the import (so an import started here goes on
 * while the dialog is closed, and one stored before a reload resumes) and shows its status.
 */
export function CsvImportCard() {
  const actor = useCsvImport();
  const openLabel = useSelector(actor, selectOpenLabel);
  const [opened, { open, close }] = useDisclosure(false);
  return (
    <Card>
      <Stack gap="md" h="100%" justify="space-between">
        <Group gap="sm" wrap="nowrap">
          <ThemeIcon size={40} radius="md" variant="light" aria-hidden>
            <IconFileSpreadsheet size={22} stroke={1.6} />
          </ThemeIcon>
          <Stack gap={0}>
            <Group gap="xs">
              <Title order={3} fz="md">
                Import CSV
              </Title>
              <CsvImportStatusBadge actor={actor} />
            </Group>
            <Text size="sm" c="dimmed">
              Upload your payments from a spreadsheet: customer, start, end and monthly amount.
            </Text>
          </Stack>
        </Group>
        <Button variant="light" onClick={open} leftSection={<IconUpload size={16} />} style={{ alignSelf: 'flex-start' }}>
          {openLabel}
        </Button>
      </Stack>
      <CsvImportDialog actor={actor} opened={opened} onClose={close} />
    </Card>
  );
}
